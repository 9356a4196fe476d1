import Foundation
import Glibc
import Testing
import JuiceClient

/// Paired tills from JuiceClient's side (issue 31): `pair(code:)` against the real server, the
/// credential sent as `TILL` on every connection, a revoked till's orders failing with
/// `.revoked` (none applied), and the bound on orders sent and not yet answered.
@Suite(.serialized, .onOwnThreads) struct TillPairingTests {
    static let token = "s3cret"

    /// Runs `body` with a server with a manager token (so only tills and the manager may
    /// order), the manager's own line connection, and a client that is not paired yet.
    static func withShop(_ body: (ExecutableServer, _ manager: LineClient, _ device: JuiceClient) async throws -> Void) async throws {
        // A clock that stands still: "orders today" must not cross a business day mid-test.
        let clock = try StillClock()
        let server = try ExecutableServer(["--in-memory"], environment: clock.environment.merging(["JUICE_MANAGER_TOKEN": token]) { $1 })
        let manager = try server.client()
        defer { manager.close() }
        #expect(manager.ask("AUTH \(token)").hasPrefix("OK"))
        let device = client(server)
        defer { device.close() }
        try await body(server, manager, device)
    }

    /// `TILLS NEW <name>`'s code.
    static func code(_ manager: LineClient, name: String) throws -> String {
        let reply = manager.ask("TILLS NEW \(name)")
        let field = try #require(reply.split(separator: " ").first { $0.hasPrefix("code=") }, "\(reply)")
        return String(field.dropFirst(5))
    }

    static func sells(_ shop: JuiceClient) async throws -> Bool {
        if case .made = try await shop.order("kiwi") { return true }
        return false
    }

    /// Pairing returns the till and a credential; the pairing client sells at once, and a new
    /// client given the credential sells on a connection of its own, while a client without
    /// one is refused (the server has a token).
    @Test(.timeLimit(.minutes(2)))
    func aPairedTillSellsAndItsCredentialSignsInLaterConnections() async throws {
        try await Self.withShop { server, manager, device in
            let paired = try await device.pair(code: Self.code(manager, name: "Front till").lowercased())
            #expect(paired.till == 1 && paired.name == "Front till", "\(paired)")
            #expect(paired.credential.hasPrefix("1-"))
            #expect(!"\(paired)".contains(paired.credential))
            #expect(try await Self.sells(device))

            let later = client(server, tillCredential: paired.credential)
            defer { later.close() }
            #expect(try await Self.sells(later))
            let stranger = client(server)
            defer { stranger.close() }
            await #expect(throws: JuiceError.self) { _ = try await stranger.order("kiwi") }
            #expect(manager.ask("TILLS").contains("orders_today=2"), "both sales count for till 1")
        }
    }

    /// A revoked till: the next order fails with `.revoked` and sells nothing, later ones fail
    /// unsent, a new client with the credential is refused the same way, and reads still work.
    @Test(.timeLimit(.minutes(2)))
    func aRevokedTillGetsRevokedAndSellsNothing() async throws {
        try await Self.withShop { server, manager, device in
            let paired = try await device.pair(code: Self.code(manager, name: "Lost tablet"))
            #expect(try await Self.sells(device))
            #expect(manager.ask("TILLS REVOKE \(paired.till)").hasPrefix("OK TILLS REVOKE"))
            let before = manager.ask("STOCK")

            let attempts = try await withThrowingTaskGroup(of: Bool.self) { group in
                for _ in 0..<20 {
                    group.addTask {
                        do { _ = try await device.order("kiwi"); return false } catch JuiceError.revoked { return true }
                    }
                }
                return try await group.reduce(into: [Bool]()) { $0.append($1) }
            }
            #expect(attempts.allSatisfy { $0 }, "every order after the revoke fails with .revoked")

            let restarted = client(server, tillCredential: paired.credential)
            defer { restarted.close() }
            do {
                _ = try await restarted.order("kiwi")
                Issue.record("a revoked credential sold")
            } catch let error as JuiceError {
                guard case .revoked(let message) = error else { Issue.record("\(error)"); return }
                #expect(message.contains("removed"), "\(message)")
                #expect(error.refusal?.code == "REVOKED")
            }
            #expect(try await restarted.state().stock["kiwi"] != nil, "reads go on, anonymously")
            #expect(manager.ask("STOCK") == before, "nothing was sold after the revoke")
        }
    }

    /// However many orders are waiting, at most `maxUnansweredOrders` are on the wire unanswered:
    /// a listener of the test's own greets the client and never answers, and counts what comes.
    @Test(.timeLimit(.minutes(2)))
    func atMost256OrdersAreOutUnanswered() async throws {
        #expect(JuiceClient.maxUnansweredOrders == 256)
        let silent = try SilentServer()
        var configuration = JuiceClient.Configuration(port: UInt16(silent.port))
        configuration.retryBound = 5
        let shop = JuiceClient(configuration: configuration)
        let orders = Task {
            await withTaskGroup(of: Void.self) { group in
                for _ in 0..<600 { group.addTask { _ = try? await shop.order("kiwi") } }
            }
        }
        #expect(await settles { silent.orders >= JuiceClient.maxUnansweredOrders }, "\(silent.orders) orders came")
        // What would come beyond the bound comes at once (it is all queued): a second's quiet.
        try await Task.sleep(nanoseconds: 1_000_000_000)
        #expect(silent.orders == JuiceClient.maxUnansweredOrders)
        shop.close()
        await orders.value
    }
}

/// A line server that greets one client and reads, never answering: it counts `ORDER` lines.
final class SilentServer: Sendable {
    let port: Int
    private let listener: Int32
    private let count = Locked(0)

    init() throws {
        listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard let port = bindLoopbackPortZero(listener, listenBacklog: 4) else { throw TestError("cannot listen") }
        self.port = port
        Thread.detachNewThread { [listener, count] in
            var wanted = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
            guard poll(&wanted, 1, Int32(testDeadline * 1000)) == 1 else { return }
            let fd = accept(listener, nil, nil)
            guard fd >= 0 else { return }
            defer { close(fd) }
            let hello = Array("EVENT HELLO juice-server 0 protocol=1 store=silent type HELP for commands\r\n".utf8)
            _ = hello.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, 0) }
            var buffer = [UInt8](repeating: 0, count: 65536), line: [UInt8] = []
            while true {
                var ready = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                guard poll(&ready, 1, Int32(testDeadline * 1000)) == 1 else { return }
                let n = recv(fd, &buffer, buffer.count, 0)
                guard n > 0 else { return }
                // By bytes: as a Swift String, "\r\n" is one Character, not a "\n".
                var orders = 0
                for byte in buffer[..<n] {
                    if byte == 10 {
                        if line.starts(with: Array("ORDER ".utf8)) { orders += 1 }
                        line = []
                    } else {
                        line.append(byte)
                    }
                }
                count.update { $0 += orders }
            }
        }
    }

    deinit { close(listener) }

    var orders: Int { count.get }
}

@_exported import JuiceTestSupport
import Foundation
import JuiceClient

/// How many descriptors this process holds on TCP connections to `port`: /proc/self/fd's
/// `socket:[inode]` links matched against /proc/net/tcp{,6}. Counted per server port, not as
/// all of /proc/self/fd, because other suites open and close descriptors in parallel. nil when
/// a table or the descriptor list cannot be read (this process short of descriptors for a
/// moment): read as "none", that made a wait for `== 0` pass with the connection still open.
func descriptors(connectedTo port: Int) -> Int? {
    var inodes = Set<String>()
    for table in ["/proc/net/tcp", "/proc/net/tcp6"] {
        guard let text = ProcStat.read(table) else { return nil }
        for line in text.split(separator: "\n").dropFirst() {
            let fields = line.split(separator: " ")
            guard fields.count > 9, let colon = fields[2].lastIndex(of: ":"),
                  Int(fields[2][fields[2].index(after: colon)...], radix: 16) == port, fields[9] != "0" else { continue }
            inodes.insert("socket:[\(fields[9])]")
        }
    }
    guard let fds = try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd") else { return nil }
    return fds.filter { fd in
        (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/" + fd)).map(inodes.contains) ?? false
    }.count
}

/// A client on `server`'s port whose retry bound outlasts a test's restart of the server; a
/// paired till's when given its credential.
func client(_ server: ExecutableServer, token: String? = nil, retryBound: Double = testDeadline, tillCredential: String? = nil) -> JuiceClient {
    var configuration = JuiceClient.Configuration(port: UInt16(server.port), managerToken: token)
    configuration.retryBound = retryBound
    configuration.tillCredential = tillCredential
    return JuiceClient(configuration: configuration)
}

/// A pairing code from `server` (whose manager token is `token`), as the manager makes one.
func pairingCode(_ server: ExecutableServer, token: String) throws -> String {
    let manager = try server.client()
    defer { manager.close() }
    guard manager.ask("AUTH \(token)").hasPrefix("OK") else { throw TestError("AUTH \(token) refused") }
    let made = manager.ask("TILLS NEW test till")
    guard let code = made.split(separator: " ").first(where: { $0.hasPrefix("code=") })?.dropFirst(5) else {
        throw TestError("TILLS NEW: \(made)")
    }
    return String(code)
}

/// A client paired as a till: a server with a manager token takes orders only from tills.
func pairedClient(_ server: ExecutableServer, token: String, managerToken: String? = nil) async throws -> JuiceClient {
    let shop = client(server, token: managerToken)
    _ = try await shop.pair(code: pairingCode(server, token: token))
    return shop
}

/// Collects a stock() stream's elements in a task of its own, for checks while it runs.
final class StreamLog: @unchecked Sendable {
    let updates = Locked<[ShopUpdate]>([])
    /// The stream itself ended (not our task cancelled, which also ends the loop).
    private let ended = Locked(false)
    private var task: Task<Void, Never>? = nil

    init(_ stream: AsyncStream<ShopUpdate>) {
        task = Task { [updates, ended] in
            for await update in stream { updates.update { $0.append(update) } }
            if !Task.isCancelled { ended.update { $0 = true } }
        }
    }

    var all: [ShopUpdate] { updates.get }

    /// The seq of the last state the stream reported.
    var lastSeq: Int? {
        all.reversed().lazy.compactMap { update -> Int? in
            switch update {
            case .full(let state, _): return state.seq
            case .change(let seq, _, _): return seq
            default: return nil
            }
        }.first
    }

    /// Waits for the stream to end (the client was closed): false if it is still open at the
    /// deadline, so a stream that never ends fails the check rather than hanging the test.
    func finished() async -> Bool {
        await settles { ended.get }
    }

    func cancel() { task?.cancel() }
}

/// A durable server that SIGKILLs itself right after its next journal sync once `arm()` is
/// called (the debug build's JUICE_TEST_KILL_AFTER_SYNC hook): the order is on disk, its reply
/// never leaves. `crashed()` waits for that and disarms; `restart()` brings the server back on
/// the same port and data. The working directory goes with it. Its clock stands still, across
/// the restart too: a sale and its void (or its REPORT) stay in one business day.
final class CrashAfterSync {
    let work: String
    let server: ExecutableServer
    private let clock: StillClock
    private var cue: String { work + "/kill-now" }
    private var arguments: [String] { ["--data", work + "/data"] }

    init(_ name: String) throws {
        work = temporaryDirectory(name)
        clock = try StillClock()
        server = try ExecutableServer(["--data", work + "/data"],
                                      environment: clock.environment.merging(["JUICE_TEST_KILL_AFTER_SYNC": work + "/kill-now"]) { $1 })
    }

    deinit { removeTemporary(work) }

    func arm() -> Bool { FileManager.default.createFile(atPath: cue, contents: nil) }

    /// Whether the server died by the hook (then the cue is removed, so a restart runs on).
    func crashed() -> Bool {
        defer { try? FileManager.default.removeItem(atPath: cue) }
        return server.waitForExit() == -SIGKILL
    }

    func restart() throws -> ExecutableServer { try ExecutableServer.restart(arguments, port: server.port, environment: clock.environment) }
}

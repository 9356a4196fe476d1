import Foundation
import Glibc
import JuiceCore
import JuiceDomain
import JuiceStorage
import JuicePlatform
import JuiceLog
import JuiceLoop
import JuiceServices
import JuiceLine
import JuiceHTTP
@testable import JuiceServer
import Testing

/// Many clients: thousands at once, a flood ended by a reset, and the max-clients limit.
extension HardeningTests {
    // MARK: - 4. 2,000 clients

    @Test func twoThousandConcurrentClientsAreAllServedAndLeaveCleanly() throws {
        let count = 2000
        let limit = Int(Platform.raiseOpenFileLimit(toward: UInt64(count + 1000))?.soft ?? 0)
        try #require(limit >= count + 200, "RLIMIT_NOFILE \(limit) is too low for \(count) clients")
        // Two thousand from one address: no share per address here (its own tests are below).
        let server = try ExecutableServer(["--in-memory", "--max-clients-per-address", "0"])
        let control = try server.peer()
        _ = control.nextLine()
        let threads = 4
        let perThread = count / threads
        let held = Locked<[LineClient]>([])
        let problems = Locked<[String]>([])
        onThreads(threads) { _ in
            var mine: [LineClient] = []
            do {
                for _ in 0..<perThread {
                    let c = try LineClient(port: server.port)
                    if c.greeting?.hasPrefix("EVENT HELLO juice-server") != true {
                        problems.update { $0.append("greeting: \(c.greeting ?? "nil")") }
                    }
                    mine.append(c)
                }
                for c in mine {
                    let pong = try c.command("PING")
                    if pong != "OK PONG" { problems.update { $0.append("PING: \(pong)") } }
                }
                for c in mine {
                    let stock = try c.command("STOCK")
                    if stock != "OK STOCK seq=0 strawberry=10 banana=10 pineapple=10 kiwi=10 mango=10" {
                        problems.update { $0.append("STOCK: \(stock)") }
                    }
                }
            } catch {
                problems.update { $0.append("\(error)") }
            }
            held.update { $0.append(contentsOf: mine) }
        }
        #expect(problems.get.isEmpty, "\(problems.get.prefix(5))")
        #expect(held.get.count == count)
        #expect(values(control.ask("STATS"))["clients"] == count + 1)
        held.update { $0.removeAll() }  // closes every socket
        let drained = eventually { values(control.ask("STATS"))["clients"] == 1 }
        #expect(drained, "STATS still says \(control.ask("STATS"))")
        #expect(server.isRunning)
    }

    // MARK: - 5. A flood, then a reset

    @Test func aFloodOfPipelinedOrdersEndedByAResetHurtsNobody() throws {
        let server = try ExecutableServer(["--in-memory"])
        let watcher = try server.peer()
        _ = watcher.nextLine()
        let bystander = try server.peer()
        _ = bystander.nextLine()
        #expect(bystander.ask("EVENTS OFF") == "OK EVENTS off")
        let logLinesBefore = server.logLineCount
        let flooder = try server.peer()
        _ = flooder.nextLine()
        let flooding = Locked(true)
        let problems = Locked<[String]>([])
        let sentBytes = Locked(0)
        onThreads(2) { n in
            if n == 0 {
                let chunk = Array(String(repeating: "ORDER banana\r\n", count: 10_000).utf8)
                var total = 0
                while total < 5_000_000 {
                    guard flooder.write(chunk) else { break }  // the server may drop us as slow first
                    total += chunk.count
                }
                sentBytes.update { $0 = total }
                flooder.reset()
                flooding.update { $0 = false }
            } else {
                while flooding.get {
                    let pong = bystander.ask("PING")
                    if pong != "OK PONG" { problems.update { $0.append(pong) }; break }
                    usleep(10_000)
                }
            }
        }
        #expect(problems.get.isEmpty, "\(problems.get)")
        #expect(bystander.ask("PING") == "OK PONG")
        #expect(bystander.ask("STOCK") == "OK STOCK seq=5 strawberry=10 banana=0 pineapple=10 kiwi=10 mango=10")
        // The watcher saw the five orders that went through, and nothing else.
        var seqs: [Int] = []
        while seqs.count < 5, case .got(let l) = watcher.nextLine() {
            if l.hasPrefix("EVENT STOCK") { seqs.append(values(l)["seq"] ?? -1) }
        }
        #expect(seqs == [1, 2, 3, 4, 5])
        #expect(watcher.ask("PING") == "OK PONG")
        #expect(server.isRunning)
        let newLines = server.logLineCount - logLinesBefore
        print("flood: \(sentBytes.get) bytes sent before the reset; \(newLines) new log lines")
        #expect(newLines < 20, "the flood produced \(newLines) log lines")
    }

    // MARK: - 10. Max clients

    /// With `--max-clients-per-address 3`, one host's fourth connection (line or HTTP) is BUSY,
    /// another host is not affected, and a slot freed by a client that left is usable again.
    /// (No probation here, so the fourth is refused at once: `CapacityTests` has probation.)
    @Test func oneAddressCannotTakeMoreThanItsShare() async throws {
        try await RunningServer.with({ $0.maxClientsPerAddress = 3; $0.probationPerAddress = 0 }) { s in
            let http = try #require(await s.server.httpPort)
            var clients = try (0..<3).map { _ in try s.client() }
            let fourth = try LineClient.peer(port: s.port)
            #expect(fourth.nextLine() == .got("ERR BUSY too many connections from your address"))
            #expect(fourth.waitClosed())
            let page = try HTTPClient.get(port: http, "/healthz")
            #expect(page.status == 503 && page.header("Retry-After") == "1", "\(page.text)")
            // Another address (127.0.0.2 is loopback too, and another host to the server).
            let others = try (0..<3).map { _ in try LineClient(port: s.port, from: "127.0.0.2") }
            for c in others + clients { #expect(try c.command("PING") == "OK PONG") }
            clients.removeFirst()  // one leaves: its slot comes back
            var accepted: LineClient?
            try #require(eventually {
                guard let c = try? s.client(readGreeting: false), case .got(let first) = c.nextLine() else { return false }
                if first.hasPrefix("EVENT HELLO") { accepted = c }
                return accepted != nil
            }, "the freed slot never took a client")
            #expect(try accepted?.command("PING") == "OK PONG")
        }
    }

    @Test func theSixthClientIsBusyUntilOneLeaves() async throws {
        // No reserve for known clients: all 5 are anonymous slots (`CapacityTests` has the reserve).
        let s = try await RunningServer.start { $0.maxClients = 5; $0.reservedClients = 0 }
        var clients = try (0..<5).map { _ in try s.client() }
        for c in clients { #expect(try c.command("PING") == "OK PONG") }
        let sixth = try LineClient.peer(port: s.port)
        #expect(sixth.nextLine() == .got("ERR BUSY max clients reached"))
        #expect(sixth.waitClosed())
        clients.removeFirst()  // one leaves
        var accepted: LineClient?
        try #require(eventually {
            guard let c = try? s.client(readGreeting: false), let first = try? c.readLine() else { return false }
            if first.hasPrefix("EVENT HELLO") { accepted = c; return true }
            return false
        }, "the freed slot never took a client")
        #expect(try accepted?.command("PING") == "OK PONG")
        for c in clients { #expect(try c.command("PING") == "OK PONG") }
        await s.stop()
    }
}

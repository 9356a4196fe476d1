import Foundation
import Glibc
import JuiceCore
@testable import JuiceServer
import Testing

/// The idle timeout and running out of file descriptors.
extension HardeningTests {
    // MARK: - 9. Idle timeout

    @Test func idleTimeoutClosesASilentClientButNotAnActiveOne() throws {
        let server = try ExecutableServer(["--in-memory", "--idle-timeout", "1"])
        let silent = try server.peer()
        _ = silent.nextLine()
        let active = try server.peer()
        _ = active.nextLine()
        let silentClosed = Locked<Date?>(nil)
        let problems = Locked<[String]>([])
        let start = Date()
        onThreads(2) { n in
            if n == 0 {
                if silent.waitClosed(timeout: 30) { silentClosed.update { $0 = Date() } }
            } else {
                // PING every 300 ms until 1.5 s past the silent client's close (or 30 s).
                while Date().timeIntervalSince(start) < 30 {
                    if let closed = silentClosed.get, Date().timeIntervalSince(closed) > 1.5 { break }
                    let pong = active.ask("PING")
                    if pong != "OK PONG" { problems.update { $0.append(pong) }; break }
                    usleep(300_000)
                }
            }
        }
        let closedAfter = silentClosed.get.map { $0.timeIntervalSince(start) }
        print("idle timeout 1 s: the silent client was closed after \(closedAfter.map { String(format: "%.2f", $0) } ?? "never") s")
        #expect(closedAfter != nil)
        #expect(problems.get.isEmpty, "the active client got \(problems.get)")
        #expect(active.ask("PING") == "OK PONG")
        #expect(server.log().contains("idle for more than 1 s"))
    }

    // MARK: - 11. Out of file descriptors

    /// Starts the server under `ulimit -n 200` (it lowers --max-clients 1000 to fit), then lowers
    /// its soft limit further so that descriptors run out before max-clients does, and connects
    /// more clients than it has descriptors for.
    private func serverOutOfDescriptors() throws -> (ExecutableServer, served: [LineClient], pending: [LineClient]) {
        let server = try ExecutableServer(["--in-memory", "--max-clients", "1000"], shellPrefix: "ulimit -n 200")
        #expect(server.log().contains("lowering max clients from 1000 to"), "\(server.log())")
        let open = ProcStat.openFiles(server.pid)
        try #require(setFileLimit(pid: server.pid, soft: open + 20, hard: 200), "prlimit failed: errno \(errno)")
        let peers = try (0..<50).map { _ in try server.peer() }
        #expect(eventually(timeout: 20) { server.log().contains("Too many open files") })
        // Who got a greeting?
        _ = eventually(timeout: 3) {
            for p in peers { p.fill(waitMilliseconds: 0) }
            return false
        }
        var served: [LineClient] = []
        var pending: [LineClient] = []
        for p in peers {
            if p.bufferedBytes > 0, case .line(let l) = p.nextLine(timeout: 0.1), l.hasPrefix("EVENT HELLO") {
                served.append(p)
            } else {
                pending.append(p)
            }
        }
        return (server, served, pending)
    }

    @Test func outOfDescriptorsTheServerNeitherSpinsNorStopsAccepting() throws {
        let (server, served, pending) = try serverOutOfDescriptors()
        #expect(served.count >= 5 && !pending.isEmpty, "served \(served.count), pending \(pending.count)")
        let cpuBefore = server.cpuSeconds
        sleep(3)
        let cpu = server.cpuSeconds - cpuBefore
        print("EMFILE: \(served.count) served, \(pending.count) pending; \(String(format: "%.2f", cpu)) s CPU over 3 s; \(server.log().components(separatedBy: "Too many open files").count - 1) pause lines")
        #expect(cpu < 1.0, "the server used \(cpu) s of CPU in 3 s while out of descriptors")
        for p in served { #expect(p.ask("PING") == "OK PONG") }
        // Some leave: waiting clients must now be accepted.
        for p in served.prefix(5) { p.close() }
        let greeted = eventually(timeout: 20) {
            for p in pending { p.fill(waitMilliseconds: 0) }
            return pending.filter { $0.bufferedBytes > 0 }.count >= 5
        }
        #expect(greeted, "after 5 clients left, \(pending.filter { $0.bufferedBytes > 0 }.count) waiting clients were accepted; log tail: \(server.log().suffix(400))")
        #expect(server.isRunning)
    }

    @Test func sigtermWhileOutOfDescriptorsStillShutsDownCleanly() throws {
        let (server, served, _) = try serverOutOfDescriptors()
        #expect(!served.isEmpty)
        server.signal(SIGTERM)
        let status = server.waitForExit(timeout: 30)
        #expect(status == 0, "exit status \(status.map(String.init) ?? "none") (negative: killed by that signal)")
        for p in served.prefix(3) {
            _ = p.waitClosed(timeout: 5)
            #expect(p.drainLines().last == "EVENT BYE shutting down")
        }
    }
}

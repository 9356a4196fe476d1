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

/// The idle timeout and running out of file descriptors.
extension HardeningTests {
    // MARK: - 9. Idle timeout

    @Test func idleTimeoutClosesASilentClientButNotAnActiveOne() throws {
        // 3 s, not 1: the server counts idleness in whole seconds, so a client quiet for a
        // little over 1 s can already be closed under a 1 s timeout. The active client's PING
        // every 300 ms then left a busy machine 0.7 s to run it (the ping thread or the server
        // waiting that long for a core closed the active client); now it has 2.7 s.
        let timeout = 3
        let server = try ExecutableServer(["--in-memory", "--idle-timeout", String(timeout)])
        // Before the connect, on the server's clock (uptime): the server times the silent
        // client from its accept, which comes after this, so it may close it no sooner than
        // `timeout` after this. A lower bound only: how much later is the machine's business.
        let beforeConnect = DispatchTime.now().uptimeNanoseconds
        let silent = try server.peer()
        _ = silent.nextLine()
        let active = try server.peer()
        _ = active.nextLine()
        let silentClosed = Locked<Date?>(nil)
        let silentIdleFor = Locked<Double?>(nil)
        let problems = Locked<[String]>([])
        let start = Date()
        onThreads(2) { n in
            if n == 0 {
                if silent.waitClosed() {
                    silentClosed.update { $0 = Date() }
                    silentIdleFor.update { $0 = Double(DispatchTime.now().uptimeNanoseconds - beforeConnect) / 1e9 }
                }
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
        print("idle timeout \(timeout) s: the silent client was closed \(silentIdleFor.get.map { String(format: "%.2f", $0) } ?? "never") s after it connected")
        let idleFor = try #require(silentIdleFor.get, "the silent client was never closed")
        #expect(idleFor >= Double(timeout), "the silent client was closed \(idleFor) s after it connected, before its \(timeout) s idle timeout")
        #expect(problems.get.isEmpty, "the active client got \(problems.get)")
        #expect(active.ask("PING") == "OK PONG")
        #expect(server.logShows("idle for more than \(timeout) s"))
    }

    // MARK: - 11. Out of file descriptors

    /// Starts the server under `ulimit -n 200` (it lowers --max-clients 1000 to fit), then lowers
    /// its soft limit further so that descriptors run out before max-clients does, and connects
    /// more clients than it has descriptors for. `control`, connected before, asks STATS.
    private func serverOutOfDescriptors() throws -> (ExecutableServer, served: [LineClient], pending: [LineClient], control: LineClient) {
        // 50 clients from one address: more than its default share of connections.
        let server = try ExecutableServer(["--in-memory", "--max-clients", "1000", "--max-clients-per-address", "0"], shellPrefix: "ulimit -n 200")
        #expect(server.logShows("lowering max clients from 1000 to"), "\(server.log())")
        let control = try server.peer()
        _ = control.nextLine()
        let open = ProcStat.openFiles(server.pid)
        try #require(setFileLimit(pid: server.pid, soft: open + 20, hard: 200), "prlimit failed: errno \(errno)")
        let peers = try (0..<50).map { _ in try server.peer() }
        #expect(eventually { server.log().contains("Too many open files") })
        // Who got a greeting? Every client the server took has one on its way: wait until the
        // greetings that arrived match the server's own count (STATS, less the control client).
        let settled = eventually {
            let taken = values(control.ask("STATS"))["clients"].map { $0 - 1 } ?? -1
            for p in peers { p.fill(waitMilliseconds: 0) }
            return peers.filter { $0.bufferedBytes > 0 }.count == taken
        }
        #expect(settled, "greetings never matched STATS: \(control.ask("STATS"))")
        var served: [LineClient] = []
        var pending: [LineClient] = []
        for p in peers {
            if p.bufferedBytes > 0, case .got(let l) = p.nextLine(timeout: 0.1), l.hasPrefix("EVENT HELLO") {
                served.append(p)
            } else {
                pending.append(p)
            }
        }
        return (server, served, pending, control)
    }

    @Test func outOfDescriptorsTheServerNeitherSpinsNorStopsAccepting() throws {
        let (server, served, pending, control) = try serverOutOfDescriptors()
        #expect(served.count >= 5 && !pending.isEmpty, "served \(served.count), pending \(pending.count)")
        // A server spinning on the connection it cannot accept is runnable all the time: on a
        // core, or waiting in a run queue for one when the machine is busy. So this measures
        // runnable time (schedstat: on-CPU plus run-queue wait, summed over threads) over a
        // window, not CPU time, which a busy machine would ration: a spin scores at least the
        // whole window whatever the load; the 100 ms back-off scores a few milliseconds a second
        // (each wake-up may wait a few ms for a core). Half the window splits the two with a wide
        // margin each way, and is a ratio, not a speed. Where the kernel keeps no schedstat, CPU
        // time stands in: still no flake, only a spin could hide on a machine too busy to run it.
        // A reading that fails is taken again (`runnableSeconds`: never a sum short of a thread).
        func busySeconds() -> Double {
            guard ProcStat.keepsSchedstat else { return server.cpuSeconds }
            var seconds: Double? = nil
            let read = eventually { seconds = ProcStat.runnableSeconds(server.pid); return seconds != nil }
            #expect(read, "cannot read /proc/\(server.pid)/task/*/schedstat")
            return seconds ?? 0
        }
        let busyBefore = busySeconds(), start = ProcessInfo.processInfo.systemUptime
        sleep(5)
        let busy = busySeconds() - busyBefore, window = ProcessInfo.processInfo.systemUptime - start
        print("EMFILE: \(served.count) served, \(pending.count) pending; runnable \(String(format: "%.3f", busy)) s of \(String(format: "%.1f", window)) s; \(server.log().components(separatedBy: "Too many open files").count - 1) pause lines")
        #expect(busy < window / 2, "the server was runnable \(busy) s of \(window) s while out of descriptors: a spin")
        #expect(control.ask("PING") == "OK PONG")
        for p in served { #expect(p.ask("PING") == "OK PONG") }
        // Some leave: waiting clients must now be accepted.
        for p in served.prefix(5) { p.close() }
        let greeted = eventually {
            for p in pending { p.fill(waitMilliseconds: 0) }
            return pending.filter { $0.bufferedBytes > 0 }.count >= 5
        }
        #expect(greeted, "after 5 clients left, \(pending.filter { $0.bufferedBytes > 0 }.count) waiting clients were accepted; log tail: \(server.log().suffix(400))")
        #expect(server.isRunning)
    }

    @Test func sigtermWhileOutOfDescriptorsStillShutsDownCleanly() throws {
        let (server, served, _, control) = try serverOutOfDescriptors()
        #expect(!served.isEmpty)
        server.signal(SIGTERM)
        let status = server.waitForExit()
        #expect(status == 0, "exit status \(status.map(String.init) ?? "none") (negative: killed by that signal)")
        for p in [control] + served.prefix(3) {
            _ = p.waitClosed()
            #expect(p.drainLines().last == "EVENT BYE shutting down")
        }
    }
}

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

/// Slow consumers are dropped at the output cap; prompt displays never are (see `SlowConsumerRun`).
extension HardeningTests {
    // MARK: - 3. Slow consumers

    @Test func aSlowConsumerIsDroppedWhileADisplayKeepsEveryEventAndMemoryStaysBounded() throws {
        let run = try SlowConsumerRun(maxOutputBytes: nil, minLines: 60_000, maxLines: 400_000, chunk: 2000)
        print("slow consumer (default 1 MiB cap): \(run.summary)")
        #expect(run.problems.isEmpty, "\(run.problems.prefix(5))")
        #expect(run.slowClosed, "the slow client was never disconnected")
        #expect(run.log.contains("disconnecting slow client 127.0.0.1:\(run.slowPort)"), "log: \(run.log.suffix(2000))")
        #expect(run.displayLastSeq == run.linesSent + 1, "the display stopped at seq \(run.displayLastSeq)")
        #expect(run.peakGrowth < 30 << 20, "RSS peak grew by \(mebibytes(run.peakGrowth))")
        #expect(run.finalStock == "OK STOCK seq=\(run.linesSent + 1) banana=\(1_000_000_000 - 2 * run.linesSent)")
        let pending = try #require(run.pendingAtDrop, "no 'disconnecting slow client ...: <bytes>' line in the log")
        #expect(pending > 1 << 20 && pending < 2 << 20, "dropped with \(pending) bytes pending")
    }

    @Test func aSmallerOutputCapDropsTheSlowConsumerSooner() throws {
        let run = try SlowConsumerRun(maxOutputBytes: 65536, minLines: 5_000, maxLines: 200_000, chunk: 500)
        print("slow consumer (--max-output-bytes 65536): \(run.summary)")
        #expect(run.problems.isEmpty, "\(run.problems.prefix(5))")
        #expect(run.slowClosed, "the slow client was never disconnected")
        #expect(run.log.contains("(limit 65536)"))
        // Dropped with well under the default 1 MiB pending: sooner than the default would.
        let pending = try #require(run.pendingAtDrop, "no 'disconnecting slow client ...: <bytes>' line in the log")
        #expect(pending > 65536 && pending < 1 << 20, "dropped with \(pending) bytes pending")
        #expect(run.displayLastSeq == run.linesSent + 1)
        #expect(run.peakGrowth < 30 << 20, "RSS peak grew by \(mebibytes(run.peakGrowth))")
    }

    /// A display that reads everything at once must not count as slow just because one read of
    /// pipelined orders produced more events than the cap before the server tried to send any.
    @Test func aPromptDisplayIsNotDroppedByOneBurstOfEventsUnderASmallCap() throws {
        let server = try ExecutableServer(["--in-memory", "--max-output-bytes", "65536"])
        let manager = try server.peer()
        _ = manager.nextLine()
        #expect(manager.ask("SET banana 1000000000") == "OK SET seq=1 banana=1000000000")
        #expect(manager.ask("EVENTS OFF") == "OK EVENTS off")
        let display = try server.peer()
        _ = display.nextLine()
        #expect(display.ask("PING") == "OK PONG")
        let burst = 4000  // 56 KB of input, one send; ~170 KB of events
        let seen = Locked(0)
        let lastLine = Locked("")
        onThreads(2) { n in
            if n == 0 {
                manager.write(Array(String(repeating: "ORDER banana\r\n", count: burst).utf8))
            } else {
                var next = 2
                while next <= burst + 1 {
                    guard case .got(let l) = display.nextLine() else {
                        lastLine.update { $0 = "<closed or timeout>" }
                        break
                    }
                    guard l.hasPrefix("EVENT STOCK") else { continue }
                    if values(l)["seq"] != next { lastLine.update { $0 = l }; break }
                    next += 1
                    seen.update { $0 = next - 2 }
                }
            }
        }
        #expect(seen.get == burst, "the display got \(seen.get) of \(burst) events, then \(lastLine.get); log: \(server.log().split(separator: "\n").filter { $0.contains("slow") }.prefix(2))")
        // Absent: checked once the server stopped, which writes out every line it logged.
        server.stop()
        #expect(!server.log().contains("disconnecting slow client"))
    }

    /// The same under the default 1 MiB cap: several cashiers' pipelined bursts read in one
    /// poll batch are all broadcast before the flush pass runs, so a display that reads promptly
    /// can be dropped as "slow" without ever having been sent a byte.
    @Test func aPromptDisplaySurvivesSimultaneousBurstsFromManyCashiers() throws {
        let server = try ExecutableServer(["--in-memory"])
        let manager = try server.peer()
        _ = manager.nextLine()
        #expect(manager.ask("SET banana 1000000000") == "OK SET seq=1 banana=1000000000")
        let display = try server.peer()
        _ = display.nextLine()
        #expect(display.ask("PING") == "OK PONG")
        let cashiers = 16
        let burst = 4000
        let peers = try (0..<cashiers).map { _ in try server.peer() }
        for p in peers {
            _ = p.nextLine()
            #expect(p.ask("EVENTS OFF") == "OK EVENTS off")
        }
        let total = cashiers * burst
        let ready = Locked(0)
        let seen = Locked(0)
        let lastLine = Locked("")
        let bytes = Array(String(repeating: "ORDER banana\r\n", count: burst).utf8)
        onThreads(cashiers + 1) { n in
            if n < cashiers {
                ready.update { $0 += 1 }
                while ready.get < cashiers { usleep(100) }
                peers[n].write(bytes)  // replies are left unread: 4000 x ~45 B stays under the cap
            } else {
                var count = 0
                while count < total {
                    guard case .got(let l) = display.nextLine() else {
                        lastLine.update { $0 = "<closed or timeout>" }
                        break
                    }
                    if l.hasPrefix("EVENT STOCK") { count += 1 }
                }
                seen.update { $0 = count }
            }
        }
        #expect(seen.get == total, "the display got \(seen.get) of \(total) events, then \(lastLine.get); \(server.log().split(separator: "\n").filter { $0.contains("slow") }.prefix(2))")
    }
}

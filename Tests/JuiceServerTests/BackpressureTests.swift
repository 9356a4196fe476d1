import Foundation
import Glibc
import Testing

/// Pipelining clients that do not read: bounded memory, and a clean close that delivers the
/// last replies instead of a reset.
@Suite struct BackpressureTests {
    static func rssBytes(_ pid: Int32) -> Int {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
              let line = text.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
              let kib = Int(line.split(separator: " ", omittingEmptySubsequences: true)[1]) else { return -1 }
        return kib * 1024
    }

    /// 200,000 `STOCK` (about 14 MB of replies) sent without reading: the server stops reading
    /// this client until it catches up, so its memory does not grow with the backlog.
    @Test func aPipeliningClientThatDoesNotReadIsThrottledNotBuffered() throws {
        let server = try ExecutableServer(["--in-memory"])
        let pid = server.process.processIdentifier
        let client = try server.client()
        let before = Self.rssBytes(pid)
        let lines = 200_000
        let sent = DispatchSemaphore(value: 0)
        Thread {
            let chunk = Array(String(repeating: "STOCK\r\n", count: 1000).utf8)
            for _ in 0..<(lines / 1000) { try? client.sendRaw(chunk) }
            sent.signal()
        }.start()
        // Let the server take all it will while nobody reads.
        var peak = before
        for _ in 0..<20 {
            usleep(100_000)
            peak = max(peak, Self.rssBytes(pid))
        }
        #expect(peak - before < 16 << 20, "server RSS grew by \(peak - before) bytes")
        for i in 0..<lines {
            let reply = try client.readLine()
            if !reply.hasPrefix("OK STOCK seq=0 strawberry=10 ") {
                Issue.record("reply \(i): \(reply)")
                break
            }
        }
        sent.wait()
        #expect(try client.command("PING") == "OK PONG")
        server.signal(SIGTERM)
        #expect(server.waitForExit() == 0)
    }

    /// The reviewer's case: 30,000 pipelined PINGs then an over-long line, nothing read yet. The
    /// client must still get every PONG and the LINE_TOO_LONG error, then an orderly close.
    @Test func closingAfterUnreadInputDeliversTheLastReplies() async throws {
        let s = try await RunningServer.start()
        let c = try s.client()
        let payload = Array(String(repeating: "PING\n", count: 30_000).utf8) + Array(repeating: UInt8(ascii: "x"), count: 100_000) + [10]
        let done = DispatchSemaphore(value: 0)
        Thread {
            try? c.sendRaw(payload)
            done.signal()
        }.start()
        usleep(300_000)
        for i in 0..<30_000 {
            let line = try c.readLine()
            if line != "OK PONG" {
                Issue.record("line \(i): \(line)")
                break
            }
        }
        #expect(try c.readLine().hasPrefix("ERR LINE_TOO_LONG"))
        #expect(c.closedByServer())
        done.wait()
        await s.stop()
    }
}

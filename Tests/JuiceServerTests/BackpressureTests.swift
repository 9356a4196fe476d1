import Foundation
import Glibc
import Testing

/// Pipelining clients that do not read: bounded memory, and a clean close that delivers the
/// last replies instead of a reset.
@Suite(.onOwnThreads) struct BackpressureTests {
    /// 200,000 `STOCK` (about 14 MB of replies) sent without reading: the server stops reading
    /// this client until it catches up, so its memory does not grow with the backlog.
    @Test func aPipeliningClientThatDoesNotReadIsThrottledNotBuffered() throws {
        let server = try ExecutableServer(["--in-memory"])
        let client = try server.client()
        let peakBefore = server.peakRSS
        let lines = 200_000
        let sentLines = Locked(0)
        let sent = DispatchSemaphore(value: 0)
        Thread {
            let chunk = Array(String(repeating: "STOCK\r\n", count: 1000).utf8)
            for _ in 0..<(lines / 1000) {
                guard (try? client.sendRaw(chunk)) != nil else { break }
                sentLines.update { $0 += 1000 }
            }
            sent.signal()
        }.start()
        // Wait until the server has taken all it will while nobody reads: it has stopped reading
        // this client although input is waiting for it (the server's receive queue for the
        // connection, from /proc/net/tcp, is not empty and has held still for a second). Not a
        // fixed time: a slow sender, or a slow server, only makes this take longer.
        var queued = 0, lastChange = Date()
        let throttled = eventually {
            let now = ProcStat.tcpQueues(localPort: server.port, remotePort: client.localPort)?.receive ?? 0
            if now != queued { queued = now; lastChange = Date() }
            return queued > 0 && Date().timeIntervalSince(lastChange) >= 1
        }
        #expect(throttled, "the server never stopped reading (queued \(queued) bytes, \(sentLines.get) lines sent)")
        // VmHWM: the peak over the whole run, not a sample that could fall between spikes.
        let growth = server.peakRSS - peakBefore
        print("throttled with \(sentLines.get) of \(lines) lines sent, \(queued) bytes unread by the server; peak RSS grew \(mebibytes(growth))")
        #expect(growth < 16 << 20, "server peak RSS grew by \(mebibytes(growth))")
        for i in 0..<lines {
            let reply = try client.readLine()
            if !reply.hasPrefix("OK STOCK seq=0 strawberry=10 ") {
                Issue.record("reply \(i): \(reply)")
                break
            }
        }
        sent.wait()
        #expect(try client.command("PING") == "OK PONG")
        #expect(server.terminate() == 0)
    }

    /// The reviewer's case: 30,000 pipelined PINGs then an over-long line, nothing read yet. The
    /// client must still get every PONG and the LINE_TOO_LONG error, then an orderly close.
    @Test func closingAfterUnreadInputDeliversTheLastReplies() async throws {
        try await RunningServer.with { s in
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
        }
    }
}

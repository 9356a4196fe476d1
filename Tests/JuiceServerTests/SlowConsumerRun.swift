import JuiceCore
import JuiceDomain
import JuiceStorage
import JuicePlatform
import JuiceLog
import JuiceLoop
import JuiceServices
import JuiceLine
import JuiceHTTP
import JuiceServer
import Foundation
import Glibc

/// One cashier pipelines `ORDER banana` in chunks (with flow control so the well-behaved display
/// is never far behind), a display checks every event's seq, and a client with a tiny receive
/// buffer never reads after its greeting.
struct SlowConsumerRun {
    var problems: [String] = []
    var slowClosed = false
    var slowPort = 0
    var linesSent = 0
    var linesAtDrop: Int?
    var displayLastSeq = 0
    var rssBefore = 0
    var rssAfter = 0
    var peakGrowth = 0
    var pendingAtDrop: Int?
    var finalStock = ""
    var log = ""

    init(maxOutputBytes: Int?, minLines: Int, maxLines: Int, chunk: Int) throws {
        let server = try ExecutableServer(["--in-memory"] + (maxOutputBytes.map { ["--max-output-bytes", "\($0)"] } ?? []))
        let manager = try server.peer()
        _ = manager.nextLine()
        guard manager.ask("SET banana 1000000000") == "OK SET seq=1 banana=1000000000",
              manager.ask("EVENTS OFF") == "OK EVENTS off" else { throw TestError("setup failed") }
        let slow = try server.peer(receiveBuffer: 4096)
        _ = slow.nextLine()
        slowPort = slow.localPort
        let display = try server.peer()
        _ = display.nextLine()
        let cashier = try server.peer()
        _ = cashier.nextLine()
        guard cashier.ask("EVENTS OFF") == "OK EVENTS off", display.ask("PING") == "OK PONG" else {
            throw TestError("setup failed")
        }
        rssBefore = server.rss
        let baseline = max(rssBefore, server.peakRSS)
        let replies = Locked(0)
        let displaySeq = Locked(1)
        let sent = Locked(0)
        let sendingDone = Locked(false)
        let dropAt = Locked<Int?>(nil)
        let problems = Locked<[String]>([])
        let keepUp = maxOutputBytes == nil ? 4 * chunk : 0
        @Sendable func waitUntil(_ condition: () -> Bool) -> Bool {
            let deadline = Date().addingTimeInterval(testDeadline)
            while !condition() {
                if Date() > deadline { return false }
                usleep(500)
            }
            return true
        }
        onThreads(3) { n in
            switch n {
            case 0:
                let bytes = Array(String(repeating: "ORDER banana\r\n", count: chunk).utf8)
                var total = 0
                while total < maxLines {
                    if total >= minLines, let at = dropAt.get, total >= at + 20 * chunk { break }
                    // Flow control: the cashier and the display stay close behind.
                    let now = total
                    guard waitUntil({ replies.get >= now - (keepUp > 0 ? chunk : 0) && displaySeq.get >= now + 1 - keepUp }) else {
                        problems.update { $0.append("stalled at \(now) lines: \(replies.get) replies, display at seq \(displaySeq.get)") }
                        break
                    }
                    if dropAt.get == nil, server.log().contains("disconnecting slow client") { dropAt.update { $0 = total } }
                    guard cashier.write(bytes) else {
                        problems.update { $0.append("the cashier's send failed at \(total) lines") }
                        break
                    }
                    total += chunk
                    sent.update { $0 = total }
                }
                sendingDone.update { $0 = true }
            case 1:
                var expected = 2
                while !(sendingDone.get && expected > sent.get + 1) {
                    switch cashier.nextLine(timeout: 0.5) {
                    case .got(let l):
                        guard !l.hasPrefix("EVENT") else { continue }
                        let want = "OK ORDER banana 1 seq=\(expected) banana=\(1_000_000_000 - 2 * (expected - 1)) amount=4000"
                        if seqField(l) != expected || l.utf8.count != want.utf8.count || !l.hasSuffix("=\(1_000_000_000 - 2 * (expected - 1)) amount=4000") {
                            problems.update { $0.append("cashier: got '\(l)', wanted '\(want)'") }
                            return
                        }
                        expected += 1
                        replies.update { $0 += 1 }
                    case .closed:
                        problems.update { $0.append("the cashier was disconnected after \(expected - 2) replies") }
                        return
                    case .timeout:
                        if sendingDone.get && problems.read({ !$0.isEmpty }) { return }
                    }
                }
            default:
                var next = 2
                while !(sendingDone.get && next > sent.get + 1) {
                    switch display.nextLine(timeout: 0.5) {
                    case .got(let l):
                        guard l.hasPrefix("EVENT STOCK") else { continue }
                        let seq = seqField(l) ?? -1
                        if seq != next {
                            problems.update { $0.append("display: got seq \(seq), wanted \(next)") }
                            return
                        }
                        displaySeq.update { $0 = next }
                        next += 1
                    case .closed:
                        problems.update { $0.append("the display was disconnected at seq \(next - 1)") }
                        return
                    case .timeout:
                        if sendingDone.get && problems.read({ !$0.isEmpty }) { return }
                    }
                }
            }
        }
        linesSent = sent.get
        linesAtDrop = dropAt.get
        displayLastSeq = displaySeq.get
        self.problems = problems.get
        slowClosed = slow.waitClosed()
        rssAfter = server.rss
        peakGrowth = max(server.peakRSS, rssAfter) - baseline
        finalStock = manager.ask("STOCK banana")
        log = server.log()
        if let line = log.split(separator: "\n").first(where: { $0.contains("disconnecting slow client") }),
           let range = line.range(of: ": ", options: .backwards) {
            pendingAtDrop = Int(line[range.upperBound...].prefix { $0.isNumber })
        }
    }

    var summary: String {
        "\(linesSent) orders sent, slow client dropped \(slowClosed ? "" : "NOT ")with \(pendingAtDrop.map(String.init) ?? "?") bytes pending (seen after ~\(linesAtDrop.map(String.init) ?? "?") orders); display reached seq \(displayLastSeq); RSS \(mebibytes(rssBefore)) -> \(mebibytes(rssAfter)), peak growth \(mebibytes(peakGrowth))"
    }
}

/// The number after " seq=" in a reply or event line.
func seqField(_ line: String) -> Int? {
    WireReader.seq(in: line).map { Int($0) }
}

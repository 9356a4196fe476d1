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

/// Hostile input: an endless line, closing lines cut off by a reset, telnet negotiation, HTTP.
extension HardeningTests {
    // MARK: - 2. A 1 MiB line

    @Test func aOneMebibyteLineIsRefusedAndClosedWithBoundedMemory() throws {
        let server = try ExecutableServer(["--in-memory"])
        let control = try server.peer()
        _ = control.nextLine()
        #expect(control.ask("PING") == "OK PONG")
        let rssBefore = server.rss
        let hwmBefore = server.peakRSS
        let senders = 4
        let results = Locked<[String]>([])
        let peers = try (0..<senders).map { _ in try server.peer() }
        for p in peers { _ = p.nextLine() }
        onThreads(senders * 2) { n in
            let p = peers[n / 2]
            if n % 2 == 0 {
                // No newline anywhere: 1 MiB of one line. The send fails once the server hangs up.
                p.write([UInt8](repeating: UInt8(ascii: "A"), count: 1 << 20))
            } else {
                let first = p.nextLine()
                let closed = p.waitClosed()
                results.update { $0.append("\(first)|closed=\(closed)") }
            }
        }
        let expected = "got(\"ERR LINE_TOO_LONG a line may hold at most 4096 bytes; closing\")|closed=true"
        #expect(results.get == Array(repeating: expected, count: senders), "\(results.get)")
        let rssAfter = server.rss
        let peak = server.peakRSS
        let growth = max(peak, rssAfter) - max(rssBefore, hwmBefore)
        print("1 MiB line x\(senders): RSS \(mebibytes(rssBefore)) -> \(mebibytes(rssAfter)), peak \(mebibytes(hwmBefore)) -> \(mebibytes(peak)); growth \(mebibytes(max(0, growth)))")
        #expect(growth < 16 << 20, "RSS grew by \(mebibytes(growth))")
        #expect(control.ask("PING") == "OK PONG")
        #expect(server.logShows("line too long"))
    }

    // MARK: - Closing lines followed by a reset (found while writing 5)

    /// A line after which the server hangs up (QUIT, an HTTP request, a too-long line, the third
    /// wrong AUTH), arriving together with the peer's RST: the reply's send fails and the
    /// connection is closed inside `handleInput`, which then suspends the already-cancelled read
    /// source; releasing a suspended source crashes libdispatch, taking the whole server down.
    @Test(arguments: ["QUIT", "HTTP GET", "Host header", "too-long line", "third wrong AUTH"])
    func aClosingLineFollowedByAResetDoesNotCrashTheServer(kind: String) throws {
        let payload: String
        switch kind {
        case "QUIT": payload = "QUIT\r\n"
        case "HTTP GET": payload = "GET / HTTP/1.1\r\n"
        case "Host header": payload = "Host: x\r\n"
        case "too-long line": payload = String(repeating: "A", count: 5000) + "\r\n"
        default: payload = "AUTH a\r\nAUTH b\r\nAUTH c\r\n"
        }
        let server = try ExecutableServer(["--in-memory"], environment: ["JUICE_MANAGER_TOKEN": "s3cret"])
        var survived = 0
        for _ in 0..<10 {
            guard server.isRunning else { break }
            let p = try server.peer()
            _ = p.nextLine()
            p.write(payload)
            p.reset()
            guard let control = try? server.peer(), case .got = control.nextLine(),
                  control.ask("PING") == "OK PONG" else { break }
            survived += 1
        }
        let alive = !eventually(timeout: 1) { !server.isRunning }
        #expect(survived == 10 && alive,
                "\(kind) + RST: the server died after \(survived) rounds (exit \(server.waitForExit(timeout: 5).map(String.init) ?? "running")); \(server.log().split(separator: "\n").filter { $0.contains("crash") || $0.contains("Fatal") }.prefix(2))")
    }

    // MARK: - 6. Telnet and HTTP

    @Test func telnetNegotiationIsStrippedAndNothingSentIsEver0xFF() async throws {
        try await RunningServer.with { s in
            let p = try LineClient.peer(port: s.port)
            p.keepReceived = true
            _ = p.nextLine()
            func ask(_ bytes: [UInt8]) -> String {
                p.write(bytes)
                if case .got(let l) = p.nextReply() { return l }
                return "<none>"
            }
            let iac: UInt8 = 0xFF
            #expect(ask([iac, 0xFB, 0x01] + Array("PING\r\n".utf8)) == "OK PONG")  // IAC WILL ECHO first
            #expect(ask(Array("PI".utf8) + [iac, 0xFD, 0x03] + Array("NG\r\n".utf8)) == "OK PONG")  // IAC DO inside
            #expect(ask([iac, 0xFA, 0x18, 0x01, iac, 0xF0] + Array("STOCK kiwi\r\n".utf8)) == "OK STOCK seq=0 kiwi=10")
            // A whole command inside IAC SB ... IAC SE is swallowed: the next reply is the PING's.
            #expect(ask([iac, 0xFA, 0x18] + Array("ORDER banana\r\n".utf8) + [iac, 0xF0] + Array("PING\r\n".utf8)) == "OK PONG")
            // IAC IP (Ctrl-C) drops the partial line: nothing is ordered.
            #expect(ask(Array("ORDER ban".utf8) + [iac, 0xF4] + Array("PING\r\n".utf8)) == "OK PONG")
            #expect(ask(Array("STOCK banana\r\n".utf8)) == "OK STOCK seq=0 banana=10")
            // Telnet's bare CR is CR NUL: a control character, refused, not a crash.
            #expect(ask(Array("PING\r\0STOCK\r\n".utf8)).hasPrefix("ERR BAD_REQUEST"))
            #expect(ask(Array("\r\0\r\n".utf8)).hasPrefix("ERR BAD_REQUEST"))
            // IAC IAC is a literal 0xFF: not UTF-8, refused; the reply carries no 0xFF.
            #expect(ask(Array("PING".utf8) + [iac, iac] + Array("\r\n".utf8)).hasPrefix("ERR BAD_REQUEST"))
            #expect(ask(Array("ORDER ".utf8) + [iac, iac, 0xFE] + Array("\r\n".utf8)).hasPrefix("ERR BAD_REQUEST"))
            #expect(ask(Array("PING\r\n".utf8)) == "OK PONG")
            #expect(!p.received.contains(0xFF), "the server sent a 0xFF byte")
        }
    }

    @Test(arguments: ["GET / HTTP/1.1\r\nHost: x\r\n\r\n", "POST /x HTTP/1.0\r\nContent-Length: 0\r\n\r\n", "Host: x\r\n\r\n"])
    func anHTTPProbeGetsOneBadRequestLineThenTheConnectionCloses(request: String) async throws {
        try await RunningServer.with { s in
            let p = try LineClient.peer(port: s.port)
            p.keepReceived = true
            _ = p.nextLine()
            p.write(request)
            #expect(p.waitClosed())
            let lines = p.drainLines()
            #expect(lines.count == 1 && lines[0].hasPrefix("ERR BAD_REQUEST "), "\(lines)")
            #expect(!p.received.contains(0xFF))
            let other = try s.client()
            #expect(try other.command("PING") == "OK PONG")
        }
    }
}

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

/// The HTTP edge is as hardened as the TCP side: a capped request head, a deadline for clients
/// that never finish one, refusals for anything that is not HTTP, streams counted toward
/// `--max-clients`, and streams that stop reading dropped at the output cap.
@Suite(.onOwnThreads) struct HTTPHardeningTests {
    /// What a hostile request got: the status of the answer, if one came, and whether the
    /// server closed the connection (within `timeout`).
    static func outcome(port: Int, _ bytes: [UInt8], timeout: Double = testDeadline) -> (status: Int?, closed: Bool) {
        guard let connection = try? LineClient.peer(port: port) else { return (nil, false) }
        connection.keepReceived = true
        _ = connection.write(bytes)
        let closed = connection.waitClosed(timeout: timeout)
        return ((try? HTTPReply.parse(connection.received))?.status, closed)
    }

    /// The server still serves both sides.
    static func expectServing(_ server: ExecutableServer, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(server.isRunning, "the server exited: \(server.log().suffix(1000))", sourceLocation: sourceLocation)
        #expect((try? HTTPClient.get(port: server.httpPort, "/healthz"))?.text == "ok\n", sourceLocation: sourceLocation)
        #expect((try? server.client())?.ask("PING") == "OK PONG", sourceLocation: sourceLocation)
    }

    /// The same for an in-process server, whose HTTP side is on `http`.
    static func expectServing(_ server: RunningServer, http: Int, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect((try? HTTPClient.get(port: http, "/healthz"))?.text == "ok\n", sourceLocation: sourceLocation)
        #expect((try? server.client())?.ask("PING") == "OK PONG", sourceLocation: sourceLocation)
    }

    /// Seconds since `start` on the uptime clock, the one the server times its deadlines by.
    static func secondsSince(_ start: UInt64) -> Double {
        Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    }

    @Test func aRequestHeadOver8KiBIs431ThenClosed() throws {
        let server = try ExecutableServer(["--in-memory"])
        let http = server.httpPort
        let padding = String(repeating: "a", count: 8 * 1024)
        let long = try HTTPClient.exchange(port: http, "GET / HTTP/1.1\r\nHost: x\r\nX-Pad: \(padding)\r\n\r\n")
        #expect(long.statusLine == "HTTP/1.1 431 Request Header Fields Too Large")
        #expect(long.header("Connection") == "close")
        // One that never ends its head is refused as soon as it passes the cap, not at a deadline
        // (closed at the request deadline, it would get no 431). The wait is only bounded.
        let endless = try HTTPClient.exchange(port: http, "GET / HTTP/1.1\r\nX-Pad: \(padding)\(padding)")
        #expect(endless.status == 431)
        // Just under the cap is fine.
        let fits = String(repeating: "a", count: 8 * 1024 - 100)
        #expect(try HTTPClient.exchange(port: http, "GET /healthz HTTP/1.1\r\nHost: x\r\nX-Pad: \(fits)\r\n\r\n").status == 200)
        Self.expectServing(server)
    }

    /// Slowloris: 200 clients each send half a request head and never the rest. Everyone else
    /// is served meanwhile, and the server closes the 200 at its request deadline, not before.
    /// In-process, with the deadline at 2 s rather than the default 10 s: the server checks
    /// deadlines once a second, so 2 s leaves a server that closes too soon (at its first
    /// check) a whole second early, which the lower bound below sees.
    @Test func clientsThatNeverFinishTheirRequestAreServedAroundThenClosed() async throws {
        // 200 from one address: more than an address's default share of connections.
        try await RunningServer.with({ $0.httpRequestDeadline = 2; $0.maxClientsPerAddress = nil }) { s in
            let http = try #require(await s.server.httpPort)
            // Before the first connect: the server times each client from its accept, later.
            let beforeConnect = DispatchTime.now().uptimeNanoseconds
            var stalled: [LineClient] = []
            for _ in 0..<200 {
                let client = try LineClient.peer(port: http)
                client.keepReceived = true
                #expect(client.write("GET /state HTTP/1.1\r\nHost: 127.0.0.1\r\nUser-Agent: slow"))
                stalled.append(client)
            }
            let cashier = try s.client()
            #expect(try cashier.command("PING") == "OK PONG")
            #expect(try cashier.command("ORDER banana").hasPrefix("OK ORDER"))
            #expect(try HTTPClient.get(port: http, "/state").json()["seq"] as? Int == 1)
            // Not before the deadline: the first one's close is seen no sooner than 2 s after
            // it connected (a lower bound only; how much later is the machine's business).
            #expect(stalled[0].waitClosed(), "the first stalled client was never closed")
            let firstClosedAfter = Self.secondsSince(beforeConnect)
            #expect(firstClosedAfter >= 2, "a stalled client was closed after \(firstClosedAfter) s, before the 2 s deadline")
            let deadline = Date().addingTimeInterval(testDeadline)
            let open = stalled.filter { !$0.waitClosed(timeout: max(0, deadline.timeIntervalSinceNow)) }.count
            #expect(open == 0, "\(open) of 200 stalled clients still open after \(testDeadline) s")
            // Nothing was sent to them, not even the ORDER's event (an HTTP client is no display).
            let sent = stalled.first { !$0.received.isEmpty }.map { String(decoding: $0.received, as: UTF8.self) }
            #expect(sent == nil, "a stalled client was sent: \(sent ?? "")")
            Self.expectServing(s, http: http)
        }
    }

    /// A request head that arrives in pieces while the stock changes gets its answer, and only
    /// that: the change's event is not pushed ahead of the status line.
    @Test func aRequestHeadInPiecesGetsNothingButItsAnswer() throws {
        let server = try ExecutableServer(["--in-memory"])
        let browser = try LineClient.peer(port: server.httpPort)
        browser.keepReceived = true
        #expect(browser.write("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n"))
        // Accepted before the change (else there is no fan-out to it to get wrong).
        #expect(eventually { server.log().contains("connect 127.0.0.1:\(browser.localPort) (HTTP)") })
        let cashier = try server.client()
        #expect(try cashier.command("ORDER banana").hasPrefix("OK ORDER"))
        // The request is still being read once the ORDER's fan-out is done.
        #expect(try cashier.command("PING") == "OK PONG")
        #expect(browser.write("\r\n"))
        #expect(browser.waitClosed())
        let reply = try HTTPReply.parse(browser.received)
        #expect(reply.status == 200 && reply.text == "ok\n", "\(String(decoding: browser.received, as: UTF8.self))")
    }

    /// Whatever is not HTTP gets a 400 (or, if it could still become a request, a close at the
    /// deadline), never a crash: a TLS ClientHello, our own line protocol, HTTP/2, random bytes.
    /// In-process, with the request deadline at 1 s: random bytes that could still start a
    /// request are closed at it, and the test need not wait out the default 10 s.
    @Test func thingsThatAreNotHTTPAreRefused() async throws {
        try await RunningServer.with({ $0.httpRequestDeadline = 1 }) { s in
            let http = try #require(await s.server.httpPort)
            var hello: [UInt8] = [0x16, 0x03, 0x01, 0x02, 0x00, 0x01, 0x00, 0x01, 0xfc, 0x03, 0x03]
            hello += (0..<500).map { UInt8(truncatingIfNeeded: $0 &* 37) }
            let refused: [(String, [UInt8], Int)] = [
                ("TLS ClientHello", hello, 400),
                ("line protocol", Array("PING\r\n".utf8), 400),
                ("line protocol ORDER", Array("ORDER mango 3\r\n".utf8), 400),
                ("HTTP/2 preface", Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8), 400),
                ("HTTP/2.0", Array("GET / HTTP/2.0\r\n\r\n".utf8), 505),
                ("HTTP/0.9", Array("GET /\r\n\r\n".utf8), 400),
                ("absolute URL", Array("GET http://evil/ HTTP/1.1\r\n\r\n".utf8), 400),
                ("NUL in target", Array("GET /\0 HTTP/1.1\r\n\r\n".utf8), 400),
                ("header without colon", Array("GET / HTTP/1.1\r\nHost x\r\n\r\n".utf8), 400),
                ("folded header", Array("GET / HTTP/1.1\r\nHost: x\r\n  y\r\n\r\n".utf8), 400),
                ("control in value", Array("GET / HTTP/1.1\r\nHost: x\u{1}y\r\n\r\n".utf8), 400),
                ("65 header fields", Array(("GET / HTTP/1.1\r\n" + (0..<65).map { "X-\($0): 1\r\n" }.joined() + "\r\n").utf8), 431),
                ("3000-byte target", Array("GET /\(String(repeating: "a", count: 3000)) HTTP/1.1\r\n\r\n".utf8), 400),
            ]
            for (name, bytes, status) in refused {
                let got = Self.outcome(port: http, bytes, timeout: 20)
                #expect(got.status == status && got.closed, "\(name): \(got)")
            }
            // Random bytes (seeded: a failure replays): a 4xx, or a close at the latest at the
            // deadline if they could still be the start of a request. Sent side by side.
            let results = Locked<[String]>([])
            onThreads(24) { i in
                var rng = SeededRNG(seed: 0x5eed_0000 + UInt64(i))
                let bytes = (0..<Int.random(in: 1...4096, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) }
                let got = Self.outcome(port: http, bytes, timeout: 40)
                if !got.closed || !(got.status.map { (400...505).contains($0) } ?? true) {
                    results.update { $0.append("seed \(i): \(got)") }
                }
            }
            #expect(results.get.isEmpty, "\(results.get)")
            Self.expectServing(s, http: http)
        }
    }

    /// Event streams hold a client slot like any connection: with room for 3, three open
    /// streams leave none for an HTTP request (503) or a line client (ERR BUSY). (No reserve
    /// for known clients here, so all 3 are anonymous slots: `CapacityTests` has the reserve.)
    @Test func eventStreamsCountTowardMaxClients() throws {
        let server = try ExecutableServer(["--in-memory", "--max-clients", "3", "--reserved-clients", "0"])
        let http = server.httpPort
        var streams = try (0..<3).map { _ in try EventStreamClient(port: http) }
        for stream in streams { #expect(stream.nextEvent().isMessage) }
        // Refused whether its request is already there when the server accepts it or not.
        let waiting = try LineClient.peer(port: http)
        waiting.keepReceived = true
        #expect(waiting.waitClosed())
        for refused in [try HTTPReply.parse(waiting.received), try HTTPClient.get(port: http, "/healthz")] {
            #expect(refused.status == 503, "\(refused.statusLine)")
            #expect(refused.header("Retry-After") == "1")
        }
        let line = try server.peer()
        #expect(line.nextLine() == .got("ERR BUSY max clients reached"))
        #expect(line.waitClosed())
        // A slot freed is a slot taken again.
        streams.removeLast().close()
        #expect(eventually { (try? HTTPClient.get(port: http, "/healthz"))?.status == 200 })
        for stream in streams { #expect(stream.nextEvent(timeout: 0.1) == .timeout, "a stream was closed") }
    }

    /// A stream that stops reading is dropped once its pending output passes the cap, and the
    /// log says so; a stream that reads keeps every event.
    @Test func aStreamThatStopsReadingIsDroppedWhileOneThatReadsKeepsEveryEvent() throws {
        let server = try ExecutableServer(["--in-memory", "--max-output-bytes", "65536"])
        let http = server.httpPort
        let slow = try EventStreamClient(port: http, receiveBuffer: 4096)
        #expect(slow.nextEvent().isMessage)
        let reader = try EventStreamClient(port: http, receiveBuffer: 1 << 20)
        #expect(reader.nextEvent().isMessage)
        let cashier = try server.client()
        #expect(try cashier.command("EVENTS OFF") == "OK EVENTS off")
        let slowMark = "slow client 127.0.0.1:\(slow.connection.localPort)"
        let sent = Locked<UInt64>(0), done = Locked(false)
        let readerProblem = Locked<String?>(nil)
        onThreads(2) { n in
            if n == 0 {
                // Batches of 500 changes until the slow stream is dropped (or a generous bound).
                for _ in 0..<200 where !server.log().contains(slowMark) {
                    let start = sent.get
                    cashier.write((1...UInt64(500)).map { "SET kiwi \((start + $0) % 1000)\n" }.joined())
                    for _ in 0..<500 { _ = cashier.nextLine() }
                    sent.update { $0 += 500 }
                }
                done.update { $0 = true }
            } else {
                var next: UInt64 = 1
                while !(done.get && next > sent.get) {
                    switch reader.nextEvent(timeout: 0.5) {
                    case .got(let message) where message.seq == next: next += 1
                    case .got(let message): readerProblem.update { $0 = "expected \(next), got \(message)" }; return
                    case .closed: readerProblem.update { $0 = "closed at \(next)" }; return
                    case .timeout: continue
                    }
                }
            }
        }
        #expect(readerProblem.get == nil, "\(readerProblem.get ?? "")")
        #expect(server.logShows("disconnecting \(slowMark)"), "\(server.log().suffix(1500))")
        #expect(server.logShows("(limit 65536)"))
        #expect(slow.connection.waitClosed(), "the slow stream was never closed")
        #expect(sent.get > 0 && sent.get < 100_000)
    }
}

extension EventStreamClient.Read {
    var isMessage: Bool {
        if case .got = self { return true }
        return false
    }
}

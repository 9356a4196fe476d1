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

extension Server {
    /// Output queued for clients that their sockets have not taken yet (read on the loop).
    func pendingOutputBytes() -> Int {
        running?.connections.values.reduce(0) { $0 + $1.pendingOutputBytes } ?? 0
    }
}

/// While a server drains, its HTTP listener stays: `/healthz` answers 503 so a load balancer
/// sees the drain, and the server stops once the drain is over.
@Suite(.onOwnThreads) struct HTTPShutdownTests {
    @Test func healthzAnswers503OnceShutdownBegan() async throws {
        let running = try await RunningServer.start()
        let server = running.server
        let http = try #require(await server.httpPort)
        #expect(try HTTPClient.get(port: http, "/healthz").status == 200)
        // A line client with much unread output: its outbox cannot drain, so neither can the
        // server. Some 6 MB of replies: more than the kernel's socket buffers take.
        let reader = try LineClient.peer(port: running.port, receiveBuffer: 4096)
        #expect(reader.nextLine() != .timeout)
        #expect(reader.write(String(repeating: "STATS\n", count: 10_000)))
        #expect(await eventually { await server.pendingOutputBytes() > 0 }, "no output ever queued")
        let stream = try EventStreamClient(port: http)
        #expect(stream.nextEvent().isMessage)

        let stopped = Locked<Bool?>(nil)
        await server.shutdown(deadline: 30) { durable in stopped.update { $0 = durable } }
        let health = try HTTPClient.get(port: http, "/healthz")
        #expect(health.status == 503, "\(health.statusLine)")
        #expect(health.text == "shutting down\n")
        #expect(health.header("Retry-After") == "1")
        #expect(try HTTPClient.get(port: http, "/state").status == 503)
        // A write is refused too, in JSON, and changes nothing.
        let order = try HTTPClient.post(port: http, "/orders", json: #"{"juice":"mango"}"#)
        #expect(order.status == 503 && order.header("Retry-After") == "1", "\(order.statusLine)")
        #expect(try order.json()["error"] as? String == "SHUTTING_DOWN")
        #expect(stopped.get == nil, "the drain ended while the reader had output pending")
        // Event streams just end (a browser reconnects by itself, to another server or later).
        #expect(stream.nextEvent() == .closed)

        // The reader takes what it is owed; then the drain ends and the server stops.
        #expect(reader.waitClosed(), "the server never closed the reader")
        let lines = reader.drainLines()
        #expect(lines.last == "EVENT BYE shutting down", "\(lines.suffix(2))")
        #expect(await eventually { () async in stopped.get != nil }, "the server did not stop once the drain was over")
        #expect(stopped.get == true)
        #expect(await server.httpPort == nil)
        // Refused: nothing listens there any more. (A listener kept open but never served
        // would instead take the connection and let the request time out.)
        let afterStop = #expect(throws: TestError.self, "the HTTP port still answers after the stop") {
            try HTTPClient.get(port: http, "/healthz")
        }
        #expect(afterStop?.errno == ECONNREFUSED, "not refused: \(afterStop.map(String.init(describing:)) ?? "")")
    }
}

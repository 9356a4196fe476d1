import Foundation
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

/// The edges of the HTTP writes over real sockets: bodies, who may write (Origin, Host),
/// keep-alive and its cap, 405s.
@Suite(.onOwnThreads) struct HTTPWriteLimitsTests {
    static let order = #"{"juice":"mango"}"#

    static func raw(_ http: Int, _ head: String, body: String = "") throws -> HTTPReply {
        try HTTPClient.exchange(port: http, Array(head.utf8) + Array(body.utf8))
    }

    @Test func bodiesNeedALengthAJSONTypeAndAtMost4KiB() async throws {
        try await HTTPWriteTests.withServer { http, s in
            let host = "Host: 127.0.0.1:\(http)\r\n"
            let noLength = try Self.raw(http, "POST /orders HTTP/1.1\r\n\(host)Content-Type: application/json\r\n\r\n")
            #expect(noLength.status == 411, "\(noLength.statusLine)")
            let chunked = try Self.raw(http, "POST /orders HTTP/1.1\r\n\(host)Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n",
                                       body: "11\r\n\(Self.order)\r\n0\r\n\r\n")
            #expect(chunked.status == 411 && chunked.header("Connection") == "close")
            for length in ["4097", "99999999999999999999999999", "18446744073709551616"] {
                let large = try Self.raw(http, "POST /orders HTTP/1.1\r\n\(host)Content-Type: application/json\r\nContent-Length: \(length)\r\n\r\n",
                                         body: Self.order)
                #expect(large.status == 413, "\(length): \(large.statusLine)")
                #expect(try large.json()["ok"] as? Bool == false)
            }
            let malformed = try Self.raw(http, "POST /orders HTTP/1.1\r\n\(host)Content-Type: application/json\r\nContent-Length: 1e3\r\n\r\n")
            #expect(malformed.status == 400)
            let exact = String(repeating: " ", count: 4096 - Self.order.utf8.count) + Self.order
            #expect(try HTTPClient.post(port: http, "/orders", json: exact).status == 200)
            let text = try Self.raw(http, "POST /orders HTTP/1.1\r\n\(host)Content-Type: text/plain\r\nContent-Length: \(Self.order.utf8.count)\r\nConnection: close\r\n\r\n",
                                    body: Self.order)
            #expect(text.status == 415)
            let none = try Self.raw(http, "POST /orders HTTP/1.1\r\n\(host)Content-Length: \(Self.order.utf8.count)\r\nConnection: close\r\n\r\n", body: Self.order)
            #expect(none.status == 415)
            let charset = try HTTPClient.post(port: http, "/orders", json: Self.order, headers: [])
            #expect(charset.status == 200)
            #expect(try s.client().command("STOCK mango") == "OK STOCK seq=2 mango=4")
        }
    }

    /// Half a body is closed after the request deadline, like a slow head: never answered,
    /// never applied.
    @Test func halfABodyIsClosedAfterTheDeadline() async throws {
        let deadline: UInt64 = 2
        try await HTTPWriteTests.withServer({ $0.httpRequestDeadline = deadline }) { http, s in
            let c = try LineClient.peer(port: http)
            // On the server's clock (uptime), before the request's first bytes, from which the
            // server times it (the wall clock may be stepped meanwhile).
            let started = DispatchTime.now().uptimeNanoseconds
            #expect(c.write("POST /orders HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 17\r\n\r\n{\"juice\""))
            // Waited for without holding a thread of the cooperative pool for seconds.
            #expect(await eventually(timeout: Double(deadline) + testDeadline) { () async in c.waitClosed(timeout: 0.01) },
                    "a half body was never closed")
            #expect(HTTPHardeningTests.secondsSince(started) >= Double(deadline))
            #expect(c.drainLines().isEmpty)
            #expect(try s.client().command("STOCK mango") == "OK STOCK seq=0 mango=10")
        }
    }

    /// CSRF and DNS rebinding: a foreign Origin or a Host that is not an IP, localhost or an
    /// allowed name cannot write; reads stay open under any name.
    @Test func writesComeOnlyFromThisServersOwnOriginAndKnownNames() async throws {
        try await HTTPWriteTests.withServer({ $0.allowedHosts = ["shop.local"]; $0.initialStock = 100 }) { http, s in
            let foreign = try HTTPClient.post(port: http, "/orders", json: Self.order, headers: ["Origin: http://evil.example"])
            #expect(try foreign.status == 403 && (foreign.json()["error"] as? String) == "FORBIDDEN")
            #expect(try HTTPClient.post(port: http, "/orders", json: Self.order, headers: ["Origin: null"]).status == 403)
            let own = try HTTPClient.post(port: http, "/orders", json: Self.order, headers: ["Origin: http://127.0.0.1:\(http)"])
            #expect(own.status == 200, "\(own.text)")
            func post(host: String, origin: String? = nil) throws -> Int {
                let body = Self.order
                let head = "POST /orders HTTP/1.1\r\nHost: \(host)\r\n" + (origin.map { "Origin: \($0)\r\n" } ?? "")
                    + "Content-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n"
                return try Self.raw(http, head, body: body).status
            }
            #expect(try post(host: "rebound.evil.example:\(http)") == 403)
            #expect(try post(host: "rebound.evil.example:\(http)", origin: "http://rebound.evil.example:\(http)") == 403)
            #expect(try post(host: "localhost:\(http)") == 200)
            #expect(try post(host: "[::1]:\(http)") == 200)
            #expect(try post(host: "Shop.Local:\(http)", origin: "http://shop.local:\(http)") == 200)
            // Through an HTTPS proxy (Caddy) the page's origin is https:// under the same name.
            #expect(try post(host: "shop.local", origin: "https://shop.local") == 200)
            #expect(try post(host: "shop.local", origin: "https://evil.example") == 403)
            #expect(try post(host: "shop.local", origin: "https://shop.local.evil.example") == 403)
            let read = try Self.raw(http, "GET /state HTTP/1.1\r\nHost: rebound.evil.example\r\nConnection: close\r\n\r\n")
            #expect(read.status == 200 && read.header("Access-Control-Allow-Origin") == nil)
            #expect(try s.client().command("STOCK mango") == "OK STOCK seq=5 mango=85")
        }
    }

    /// `HostCheck.refusal` takes a plain IPv4 `Host` without an `Origin` on a fast path (every
    /// write asks); it must decide exactly as the general check does, whatever the Host.
    @Test func theHostCheckFastPathDecidesAsTheGeneralCheck() {
        let hosts = ["127.0.0.1", "127.0.0.1:7879", "10.0.0.255:80", "0.0.0.0", "1.2.3.4:", "1.2.3.4:x", "256.1.1.1",
                     "1.2.3", "1.2.3.4.5", "1..3.4", "01.002.3.4", "0001.2.3.4", "1.2.3.4a", "+1.2.3.4", "١.2.3.4",
                     "[::1]:7879", "::1", "localhost:7879", "LOCALHOST", "shop.local", "Shop.Local:80", "evil.example",
                     "", ":7879", "1.2.3.-4", " 1.2.3.4", "1.2.3.4 "]
        for host in hosts {
            for origin in [nil, "http://\(host)", "https://\(host)", "http://evil.example"] as [String?] {
                #expect(HostCheck.refusal(host: host, origin: origin, allowed: ["shop.local"])
                        == HostCheck.checked(host: host, origin: origin, allowed: ["shop.local"]), "Host \(host) Origin \(origin ?? "-")")
            }
        }
        #expect(HostCheck.refusal(host: "127.0.0.1:7879", origin: nil, allowed: []) == nil)
        #expect(HostCheck.refusal(host: "evil.example", origin: nil, allowed: []) != nil)
        #expect(HostCheck.refusal(host: nil, origin: nil, allowed: []) != nil)
    }

    /// A till's connection stays for many requests (pipelined ones answered in order), up to
    /// the cap; the last answer says close and the server closes.
    @Test func keepAliveServesRequestsInOrderUpToTheCap() async throws {
        try await HTTPWriteTests.withServer({ $0.initialStock = 10_000 }) { http, s in
            let c = try LineClient.peer(port: http)
            let two = HTTPClient.postRequest(port: http, "/orders", json: Self.order, close: false)
                + Array("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n".utf8)
            #expect(c.write(two))
            let first = try HTTPClient.readReply(c)
            #expect(first.status == 200 && first.header("Connection") == "keep-alive")
            #expect(try first.json()["seq"] as? Int == 1)
            let second = try HTTPClient.readReply(c)
            #expect(second.status == 200 && second.text == "ok\n")
            let cap = Int(HTTPProtocol.maxRequestsPerConnection)
            for n in 3...cap {
                #expect(c.write(HTTPClient.postRequest(port: http, "/orders", json: Self.order, close: false)))
                let reply = try HTTPClient.readReply(c)
                #expect(reply.status == 200)
                #expect(reply.header("Connection") == (n == cap ? "close" : "keep-alive"), "request \(n)")
            }
            #expect(c.waitClosed(), "the server kept the connection past the cap")
            #expect(try s.client().command("STOCK mango") == "OK STOCK seq=\(cap - 1) mango=\(10_000 - 3 * (cap - 1))")
        }
    }

    /// An idle kept-alive connection is closed after the keep-alive timeout.
    @Test func anIdleKeptAliveConnectionIsClosed() async throws {
        try await HTTPWriteTests.withServer { http, _ in
            let c = try LineClient.peer(port: http)
            // Before the request, on the server's clock (uptime): the server times the idle
            // connection from its answer, which comes after this. Taken after reading the answer
            // instead (as it was, with a second's slack), a test thread that waited over a second
            // for a core between the two saw the close "early".
            let beforeRequest = DispatchTime.now().uptimeNanoseconds
            #expect(c.write("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"))
            #expect(try HTTPClient.readReply(c).header("Connection") == "keep-alive")
            #expect(await eventually(timeout: Double(HTTPProtocol.keepAliveIdle) + testDeadline) { () async in c.waitClosed(timeout: 0.01) })
            #expect(HTTPHardeningTests.secondsSince(beforeRequest) >= Double(HTTPProtocol.keepAliveIdle))
        }
    }

    @Test func theWriteRoutesTakePOSTOnly() async throws {
        try await HTTPWriteTests.withServer { http, _ in
            for path in ["/orders", "/restock", "/set"] {
                let get = try HTTPClient.get(port: http, path)
                #expect(get.status == 405 && get.header("Allow") == "POST", "\(path): \(get.statusLine)")
            }
            let unknown = try HTTPClient.post(port: http, "/order", json: Self.order)
            #expect(unknown.status == 404)
        }
    }
}

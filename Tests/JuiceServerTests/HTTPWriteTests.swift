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

/// The HTTP writes over real sockets: each is its line twin (same store, key memory, journal
/// and broadcast), answered in JSON with the statuses PROTOCOL.md lists.
@Suite(.onOwnThreads) struct HTTPWriteTests {
    static func withServer(_ configure: @escaping (inout ServerConfig) -> Void = { _ in },
                           _ body: (_ http: Int, _ s: RunningServer) async throws -> Void) async throws {
        try await RunningServer.with(configure) { s in
            let http = try #require(await s.server.httpPort)
            try await body(http, s)
        }
    }

    @Test func anOrderIsAppliedBroadcastAndAnsweredInJSON() async throws {
        try await Self.withServer { http, s in
            let display = try s.client()
            let reply = try HTTPClient.post(port: http, "/orders", json: #"{"juice": "mango-kiwi", "count": 2}"#)
            #expect(reply.status == 200, "\(reply.statusLine) \(reply.text)")
            #expect(reply.header("Content-Type") == "application/json; charset=utf-8")
            #expect(reply.text == #"{"ok":true,"juice":"mango-kiwi","count":2,"seq":1,"stock":{"mango":6,"kiwi":8},"amount":11000,"dup":false}"#)
            #expect(reply.header("Access-Control-Allow-Origin") == nil)
            #expect(try display.nextEvent() == "EVENT STOCK seq=1 mango=6 kiwi=8")
            let stats = values(try display.command("STATS"))
            #expect(stats["sold_mango-kiwi"] == 2 && stats["orders_served"] == 1)
            // Count defaults to 1; an alias names the juice as in ORDER.
            let alias = try HTTPClient.post(port: http, "/orders", json: #"{"juice":"망고쥬스"}"#)
            #expect(try alias.json()["juice"] as? String == "mango" && alias.json()["count"] as? Int == 1)
        }
    }

    /// One key memory for both protocols: a key used over TCP and retried over HTTP (and the
    /// other way round) is applied once, and the repeat answers the original with dup.
    @Test func anIdempotencyKeyIsTheLineProtocolsKey() async throws {
        try await Self.withServer { http, s in
            let c = try s.client()
            #expect(try c.command("ORDER mango key=till1-1") == "OK ORDER mango 1 seq=1 mango=7 amount=5000")
            let retry = try HTTPClient.post(port: http, "/orders", json: #"{"juice":"mango"}"#, headers: ["Idempotency-Key: till1-1"])
            #expect(retry.status == 200)
            #expect(retry.text == #"{"ok":true,"juice":"mango","count":1,"seq":1,"stock":{"mango":7},"amount":5000,"dup":true}"#)

            let first = try HTTPClient.post(port: http, "/orders", json: #"{"juice":"kiwi","count":3}"#, headers: ["Idempotency-Key: till1-2"])
            #expect(try first.json()["seq"] as? Int == 2 && first.json()["dup"] as? Bool == false)
            #expect(try c.command("ORDER kiwi 3 key=till1-2") == "OK ORDER kiwi 3 seq=2 kiwi=1 amount=13500 dup")
            let again = try HTTPClient.post(port: http, "/orders", json: #"{"juice":"kiwi","count":3}"#, headers: ["Idempotency-Key: till1-2"])
            #expect(try again.json()["dup"] as? Bool == true)
            // The same key for another order is refused, as on TCP.
            let reused = try HTTPClient.post(port: http, "/orders", json: #"{"juice":"banana"}"#, headers: ["Idempotency-Key: till1-2"])
            #expect(try reused.status == 409 && (reused.json()["error"] as? String) == "KEY_REUSED")
            let bad = try HTTPClient.post(port: http, "/orders", json: #"{"juice":"banana"}"#, headers: ["Idempotency-Key: no way"])
            #expect(try bad.status == 400 && (bad.json()["error"] as? String) == "BAD_ARGUMENT")
            #expect(try c.command("STOCK") == "OK STOCK seq=2 strawberry=10 banana=10 pineapple=10 kiwi=1 mango=7")
        }
    }

    @Test func refusalsCarryTheLineCodeAndTheirStatus() async throws {
        try await Self.withServer { http, s in
            let short = try HTTPClient.post(port: http, "/orders", json: #"{"juice":"strawberry-banana","count":2}"#)
            #expect(short.status == 409)
            #expect(short.text == #"{"ok":false,"error":"OUT_OF_STOCK","message":"needs strawberry=20 has strawberry=10","needs":{"strawberry":20},"has":{"strawberry":10}}"#)
            let cases: [(String, String, Int, String)] = [
                ("/orders", #"{"juice":"durian"}"#, 400, "UNKNOWN_JUICE"),
                ("/orders", #"{"juice":"mango","count":0}"#, 400, "BAD_ARGUMENT"),
                ("/orders", #"{"juice":"mango","count":1001}"#, 400, "BAD_ARGUMENT"),
                ("/orders", #"{"juice":"mango","count":"2"}"#, 400, "BAD_ARGUMENT"),
                ("/orders", #"{"juice":"mango","count":1.5}"#, 400, "BAD_ARGUMENT"),
                ("/orders", #"{"juice":"mango kiwi"}"#, 400, "BAD_ARGUMENT"),
                ("/orders", #"{"count":1}"#, 400, "BAD_ARGUMENT"),
                ("/orders", #"{"juice":"mango",}"#, 400, "BAD_REQUEST"),
                ("/orders", #"["mango"]"#, 400, "BAD_REQUEST"),
                ("/orders", #"{"juice":"banana","juice":"kiwi"}"#, 400, "BAD_REQUEST"),
                ("/orders", "", 400, "BAD_REQUEST"),
                ("/restock", #"{"fruit":"durian","amount":1}"#, 400, "UNKNOWN_FRUIT"),
                ("/restock", #"{"fruit":"kiwi","amount":999999991}"#, 409, "OVER_LIMIT"),
                ("/set", #"{"fruit":"kiwi","amount":-1}"#, 400, "BAD_ARGUMENT"),
                ("/set", #"{"fruit":"kiwi"}"#, 400, "BAD_ARGUMENT"),
            ]
            for (path, json, status, code) in cases {
                let reply = try HTTPClient.post(port: http, path, json: json)
                #expect(reply.status == status, "\(path) \(json) -> \(reply.statusLine) \(reply.text)")
                #expect(try reply.json()["error"] as? String == code, "\(path) \(json) -> \(reply.text)")
                #expect(try reply.json()["ok"] as? Bool == false)
            }
            let c = try s.client()
            #expect(try c.command("STOCK") == "OK STOCK seq=0 strawberry=10 banana=10 pineapple=10 kiwi=10 mango=10")
        }
    }

    /// Each line code's status. `READ_ONLY` (a full disk) and `BUSY` (the journal still growing)
    /// are 503: the server's state, not the order's fault.
    @Test func lineCodesMapToTheirStatuses() {
        let expected: [(String, HTTPStatus)] = [
            ("OUT_OF_STOCK", .conflict), ("OVER_LIMIT", .conflict), ("KEY_REUSED", .conflict), ("READ_ONLY", .serviceUnavailable),
            ("BUSY", .serviceUnavailable), ("BAD_ARGUMENT", .badRequest), ("UNKNOWN_JUICE", .badRequest), ("UNKNOWN_FRUIT", .badRequest), ("BAD_REQUEST", .badRequest),
            ("FORBIDDEN", .unauthorized), ("AUTH_FAILED", .unauthorized),
        ]
        for (code, status) in expected { #expect(WriteAnswer.status(for: ErrorCode(rawValue: code)!) == status, "\(code)") }
    }

    @Test func restockAndSetAnswerSeqAndStock() async throws {
        try await Self.withServer { http, s in
            let display = try s.client()
            let restock = try HTTPClient.post(port: http, "/restock", json: #"{"fruit":"mango","amount":5}"#)
            #expect(restock.status == 200 && restock.text == #"{"ok":true,"seq":1,"stock":{"mango":15}}"#, "\(restock.text)")
            let set = try HTTPClient.post(port: http, "/set", json: #"{"fruit":"키위","amount":2}"#)
            #expect(set.status == 200 && set.text == #"{"ok":true,"seq":2,"stock":{"kiwi":2}}"#, "\(set.text)")
            #expect(try display.nextEvent() == "EVENT STOCK seq=1 mango=15")
            #expect(try display.nextEvent() == "EVENT STOCK seq=2 kiwi=2")
        }
    }

    /// With a token, the manager routes need the bearer header; wrong tokens count toward the
    /// same per-address limit as AUTH. Orders need a paired till or the token.
    @Test func managerWritesNeedTheTokenAndShareTheAuthLimit() async throws {
        try await Self.withServer({ $0.managerToken = Array("s3cret".utf8) }) { http, s in
            let body = #"{"fruit":"mango","amount":5}"#
            let none = try HTTPClient.post(port: http, "/restock", json: body)
            #expect(none.status == 401 && none.header("WWW-Authenticate") == "Bearer realm=\"juice-server\"")
            #expect(try none.json()["error"] as? String == "AUTH_FAILED")
            #expect(try HTTPClient.post(port: http, "/set", json: body, headers: ["Authorization: Bearer wrong"]).status == 401)
            let ok = try HTTPClient.post(port: http, "/restock", json: body, headers: ["Authorization: Bearer s3cret"])
            #expect(ok.status == 200, "\(ok.text)")
            // With a token, an order needs a paired till or the manager (issue 31).
            let anonymous = try HTTPClient.post(port: http, "/orders", json: #"{"juice":"mango"}"#)
            #expect(try anonymous.status == 401 && anonymous.json()["error"] as? String == "FORBIDDEN")
            #expect(try HTTPClient.post(port: http, "/orders", json: #"{"juice":"mango"}"#, headers: ["Authorization: Bearer s3cret"]).status == 200)
            // 9 more wrong tokens over HTTP (10 in all): now AUTH over TCP is refused unchecked.
            for _ in 0..<9 { _ = try HTTPClient.post(port: http, "/set", json: body, headers: ["Authorization: Bearer nope"]) }
            let blocked = try HTTPClient.post(port: http, "/set", json: body, headers: ["Authorization: Bearer s3cret"])
            #expect(try blocked.status == 401 && (blocked.json()["message"] as? String)?.hasPrefix("too many failures") == true)
            let c = try s.client()
            #expect(try c.command("AUTH s3cret").hasPrefix("ERR AUTH_FAILED too many failures"))
            #expect(try c.command("STOCK mango") == "OK STOCK seq=2 mango=12")
        }
    }

    /// Answered once durable, and durable: a restart shows the HTTP order.
    @Test func anOrderOverHTTPSurvivesARestart() async throws {
        let dir = temporaryDirectory()
        defer { removeTemporary(dir) }
        try await Self.withServer({ $0.dataDirectory = dir }) { http, _ in
            let reply = try HTTPClient.post(port: http, "/orders", json: #"{"juice":"banana"}"#, headers: ["Idempotency-Key: k9"])
            #expect(reply.status == 200)
        }
        try await Self.withServer({ $0.dataDirectory = dir }) { http, s in
            #expect(try s.client().command("STOCK banana") == "OK STOCK seq=1 banana=8")
            // The key memory survived too: the retry after the restart is the same sale.
            let retry = try HTTPClient.post(port: http, "/orders", json: #"{"juice":"banana"}"#, headers: ["Idempotency-Key: k9"])
            #expect(try retry.json()["dup"] as? Bool == true && retry.json()["seq"] as? Int == 1)
        }
    }
}

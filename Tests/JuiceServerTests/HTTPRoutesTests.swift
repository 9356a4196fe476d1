import Foundation
import Testing

/// The public routes of the HTTP side, on the built executable as a user runs it, over real
/// sockets with raw request bytes: the board, /state, /healthz, and the refusals (404, 405).
@Suite(.onOwnThreads) struct HTTPRoutesTests {
    static func server() throws -> ExecutableServer {
        try ExecutableServer(["--in-memory"])
    }

    /// The page a shop's screen opens: one HTML document that loads nothing from elsewhere (the
    /// stand may have no internet), the same for `/?lang=ko` (a query never changes the route).
    @Test func theBoardIsOneSelfContainedDocument() throws {
        let server = try Self.server()
        let http = server.httpPort
        let page = try HTTPClient.get(port: http, "/")
        #expect(page.statusLine == "HTTP/1.1 200 OK")
        #expect(page.header("Content-Type") == "text/html; charset=utf-8")
        #expect(page.header("Content-Length") == String(page.body.count))
        #expect(page.header("Connection") == "close")
        #expect(page.text.lowercased().hasPrefix("<!doctype html>"), "\(page.text.prefix(80))")
        for external in ["src=\"http", "href=\"http", "src=\"//", "href=\"//", "src='http", "href='http", "url(http", "@import"] {
            #expect(!page.text.contains(external), "the board loads \(external)…")
        }
        let korean = try HTTPClient.get(port: http, "/?lang=ko")
        #expect(korean.status == 200 && korean.body == page.body)
        #expect(try HTTPClient.get(port: http, "/?").body == page.body)
    }

    /// HEAD: the head GET would send (Content-Length included), and no body at all.
    @Test func headSendsTheSameHeadWithoutABody() throws {
        let server = try Self.server()
        let http = server.httpPort
        for target in ["/", "/state", "/healthz", "/no-such-page"] {
            let get = try HTTPClient.get(port: http, target)
            let head = try HTTPClient.request("HEAD", port: http, target)
            #expect(head.statusLine == get.statusLine, "\(target)")
            #expect(head.headers == get.headers, "\(target)")
            #expect(head.header("Content-Length") == String(get.body.count), "\(target)")
            #expect(head.body.isEmpty, "HEAD \(target) sent \(head.body.count) body bytes")
        }
    }

    /// /state after an ORDER over TCP, read by Foundation's JSON parser: the seq, the menu in
    /// order with its aliases (Korean, as UTF-8 on the wire), recipes, stock and what can be made.
    @Test func stateShowsMenuStockAndWhatCanBeMade() throws {
        let server = try Self.server()
        let http = server.httpPort
        let cashier = try server.client()
        #expect(try cashier.command("ORDER mango-kiwi 2") == "OK ORDER mango-kiwi 2 seq=1 mango=6 kiwi=8 amount=11000")
        #expect(try cashier.command("SET strawberry 33").hasPrefix("OK SET seq=2 "))
        let reply = try HTTPClient.get(port: http, "/state")
        #expect(reply.status == 200)
        #expect(reply.header("Content-Type") == "application/json; charset=utf-8")
        #expect(reply.header("Content-Length") == String(reply.body.count))
        // Raw UTF-8 on the wire, not \u escapes: "딸기" is EB94 B8EA B8B0.
        #expect(reply.body.firstRange(of: Array("\"딸기\"".utf8)) != nil, "\(reply.text)")
        let state = try reply.json()
        #expect(state["seq"] as? Int == 2)
        let fruits = try #require(state["fruits"] as? [[String: Any]])
        #expect(fruits.compactMap { $0["name"] as? String } == ["strawberry", "banana", "pineapple", "kiwi", "mango"])
        #expect(fruits.first?["aliases"] as? [String] == ["딸기"])
        #expect(fruits.last?["aliases"] as? [String] == ["망고"])
        let juices = try #require(state["juices"] as? [[String: Any]])
        #expect(juices.compactMap { $0["name"] as? String }
            == ["strawberry", "banana", "kiwi", "pineapple", "strawberry-banana", "mango", "mango-kiwi"])
        let strawberryBanana = try #require(juices.first { $0["name"] as? String == "strawberry-banana" })
        #expect(strawberryBanana["aliases"] as? [String] == ["딸바쥬스"])
        let recipe = try #require(strawberryBanana["recipe"] as? [[String: Any]])
        #expect(recipe.map { "\($0["fruit"] ?? "?")=\($0["amount"] ?? "?")" } == ["strawberry=10", "banana=1"])
        let stock = try #require(state["stock"] as? [String: Int])
        #expect(stock == ["strawberry": 33, "banana": 10, "pineapple": 10, "kiwi": 8, "mango": 6])
        let canMake = try #require(state["can_make"] as? [String: Int])
        // min over the recipe of floor(stock / amount)
        #expect(canMake == ["strawberry": 2, "banana": 5, "kiwi": 2, "pineapple": 5, "strawberry-banana": 3,
                            "mango": 2, "mango-kiwi": 3])
    }

    @Test func healthzAnswersOk() throws {
        let server = try Self.server()
        let http = server.httpPort
        let reply = try HTTPClient.get(port: http, "/healthz")
        #expect(reply.status == 200 && reply.body == Array("ok\n".utf8))
        #expect(reply.header("Content-Type") == "text/plain; charset=utf-8")
    }

    @Test func unknownPathsAre404() throws {
        let server = try Self.server()
        let http = server.httpPort
        for target in ["/nope", "/state/", "/State", "/events/x", "/healthz?x=1/../..", "//", "/%2e%2e/etc/passwd"] {
            let reply = try HTTPClient.get(port: http, target)
            // `/healthz` is found; its query holds a parameter it does not take (`x`): 400.
            let expected = target.hasPrefix("/healthz?") ? 400 : 404
            #expect(reply.status == expected, "GET \(target): \(reply.statusLine)")
        }
    }

    /// Read-only: any other method is refused with 405 and the methods that work, and changes
    /// nothing (a body the client sends is never read as a request).
    @Test(arguments: ["POST", "PUT", "DELETE", "PATCH", "OPTIONS"])
    func otherMethodsAre405WithAllow(method: String) throws {
        let server = try Self.server()
        let http = server.httpPort
        let body = "ORDER mango"
        let reply = try HTTPClient.exchange(
            port: http, "\(method) /state HTTP/1.1\r\nHost: x\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)")
        #expect(reply.status == 405, "\(reply.statusLine)")
        #expect(reply.header("Allow") == "GET, HEAD")
        let cashier = try server.client()
        #expect(try cashier.command("STOCK mango") == "OK STOCK seq=0 mango=10")
    }

    /// HTTP/1.0 (no Host header needed): answered, and closed after the body.
    @Test func http10IsServed() throws {
        let server = try Self.server()
        let http = server.httpPort
        let reply = try HTTPClient.exchange(port: http, "GET /state HTTP/1.0\r\n\r\n")
        #expect(reply.status == 200)
        #expect(try reply.json()["seq"] as? Int == 0)
        let health = try HTTPClient.exchange(port: http, "GET /healthz HTTP/1.0\r\nUser-Agent: curl/8\r\n\r\n")
        #expect(health.status == 200 && health.text == "ok\n")
    }

    /// Pipelined requests are answered in order, the first one first (the toolkit reads one
    /// answer); HEAD /events answers the stream's head and closes, opening no stream.
    @Test func pipelinedRequestsAndHeadOfEvents() throws {
        let server = try Self.server()
        let http = server.httpPort
        let pipelined = try HTTPClient.exchange(port: http, "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\nGET /state HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(pipelined.status == 200 && pipelined.text == "ok\n", "\(pipelined.text)")
        let head = try HTTPClient.request("HEAD", port: http, "/events")
        #expect(head.status == 200 && head.header("Content-Type") == "text/event-stream; charset=utf-8" && head.body.isEmpty)
        // The head GET would send, less the stream: no Content-Length (a stream has none).
        #expect(head.header("Content-Length") == nil && head.header("Cache-Control") == "no-store", "\(head.headers)")
        #expect(head.header("Connection") == "close")
        #expect(try HTTPClient.get(port: http, "/metrics").text.contains("juice_clients{kind=\"events\"} 0\n"))
    }

    /// A query string is not part of the route: `/?lang=ko` is the board, and `/nope?lang=ko` is
    /// 404 as `/nope` is; but a parameter the route does not take is refused, never ignored
    /// (issue 34; HTTPQueryParameterTests): `/state?pretty=1` is 400 naming `pretty`.
    @Test func queriesAreNotPartOfTheRoute() throws {
        let server = try Self.server()
        let http = server.httpPort
        let pretty = try HTTPClient.get(port: http, "/state?pretty=1")
        #expect(pretty.status == 400 && pretty.text.hasPrefix("unknown query parameter pretty: "), "\(pretty.text)")
        #expect(try HTTPClient.get(port: http, "/?lang=ko").header("Content-Type") == "text/html; charset=utf-8")
        #expect(try HTTPClient.get(port: http, "/nope?lang=ko").status == 404)
    }
}

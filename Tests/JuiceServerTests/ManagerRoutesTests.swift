import Foundation
import Testing

/// The manager's data over HTTP (`/metrics`, `/sales`): behind `Authorization: Bearer` when a
/// manager token is configured, with the same per-address failure limit as `AUTH`; open
/// without one. Its figures are the store's, the same STATS and STOCK report.
@Suite(.onOwnThreads) struct ManagerRoutesTests {
    static let token = "s3cret-token"
    static let managerRoutes = ["/metrics", "/sales"]

    static func server(token: String? = ManagerRoutesTests.token) throws -> ExecutableServer {
        try ExecutableServer(["--in-memory"], environment: token.map { ["JUICE_MANAGER_TOKEN": $0] } ?? [:])
    }

    static func get(_ server: ExecutableServer, _ path: String, token: String?) throws -> HTTPReply {
        try HTTPClient.get(port: server.httpPort, path, headers: token.map { ["Authorization: Bearer \($0)"] } ?? [])
    }

    @Test(arguments: managerRoutes)
    func theManagerTokenIsNeeded(path: String) throws {
        let server = try Self.server()
        for (name, headers) in [("no header", [String]()), ("wrong token", ["Authorization: Bearer nope"]),
                                ("another scheme", ["Authorization: Basic \(Self.token)"]),
                                ("a prefix of it", ["Authorization: Bearer \(Self.token.dropLast())"])] {
            let refused = try HTTPClient.get(port: server.httpPort, path, headers: headers)
            #expect(refused.status == 401, "\(name): \(refused.statusLine)")
            #expect(refused.header("WWW-Authenticate") == "Bearer realm=\"juice-server\"", "\(name)")
            #expect(!refused.text.contains("juice_") && !refused.text.contains("orders_served"), "\(name) leaked data")
        }
        let allowed = try Self.get(server, path, token: Self.token)
        #expect(allowed.status == 200, "\(allowed.statusLine) \(allowed.text)")
        // The scheme is case-insensitive (RFC 9110); the pages stay public.
        #expect(try HTTPClient.get(port: server.httpPort, path, headers: ["authorization: bearer \(Self.token)"]).status == 200)
        #expect(try HTTPClient.get(port: server.httpPort, "/dashboard").status == 200)
        #expect(try HTTPClient.get(port: server.httpPort, "/state").status == 200)
        // Absent: checked once the server stopped, which writes out every line it logged.
        server.stop()
        #expect(!server.log().contains(Self.token), "the token reached the log")
    }

    @Test(arguments: managerRoutes)
    func withoutATokenConfiguredTheyAreOpen(path: String) throws {
        let server = try Self.server(token: nil)
        #expect(try Self.get(server, path, token: nil).status == 200)
        #expect(try Self.get(server, path, token: "anything").status == 200)
    }

    /// Wrong tokens count per address across both protocols: 6 wrong AUTHs over TCP and 4
    /// wrong Bearer tokens make 10, and then even the right token is refused unchecked, on
    /// HTTP and on TCP. With one fewer failure the right token still works.
    @Test(arguments: [9, 10])
    func wrongTokensOverTCPAndHTTPShareOneLimit(failures: Int) throws {
        let server = try Self.server()
        var tcpFailures = 0
        for _ in 0..<2 {
            let guesser = try server.peer()
            _ = guesser.nextLine()
            for _ in 0..<3 where tcpFailures < 6 {
                #expect(guesser.ask("AUTH guess").hasPrefix("ERR AUTH_FAILED wrong token"))
                tcpFailures += 1
            }
        }
        for path in (0..<(failures - tcpFailures)).map({ Self.managerRoutes[$0 % 2] }) {
            let wrong = try Self.get(server, path, token: "guess")
            #expect(wrong.status == 401 && wrong.text == "wrong token\n", "\(wrong.text)")
        }
        let right = try Self.get(server, "/sales", token: Self.token)
        let manager = try server.client()
        let auth = try manager.command("AUTH \(Self.token)")
        if failures < 10 {
            #expect(right.status == 200, "\(right.text)")
            #expect(auth == "OK AUTH")
        } else {
            #expect(right.status == 401 && right.text.hasPrefix("too many failures, retry in "), "\(right.text)")
            #expect(right.header("Retry-After").flatMap(Int.init).map { $0 >= 1 && $0 <= 60 } == true)
            #expect(auth.hasPrefix("ERR AUTH_FAILED too many failures, retry in "), "\(auth)")
            #expect(try Self.get(server, "/metrics", token: Self.token).status == 401)
        }
    }

    /// /metrics through the reference parser, figure by figure against STATS and STOCK, with
    /// the open event streams as `juice_clients{kind="events"}`.
    @Test(.requires(.prometheusClient))
    func metricsParseAndMatchStats() throws {
        try OutsideTool.prometheusClient.require()
        let server = try Self.server()
        let cashier = try server.client()
        #expect(try cashier.command("AUTH \(Self.token)") == "OK AUTH")
        #expect(try cashier.command("ORDER mango-kiwi 2").hasPrefix("OK ORDER"))
        #expect(try cashier.command("ORDER strawberry") == "ERR OUT_OF_STOCK needs strawberry=16 has strawberry=10")
        #expect(try cashier.command("ORDER banana 3").hasPrefix("OK ORDER"))
        #expect(try cashier.command("ORDER banana 9").hasPrefix("ERR OUT_OF_STOCK"))
        #expect(try cashier.command("RESTOCK kiwi 5").hasPrefix("OK RESTOCK"))
        let streams = try (0..<2).map { _ in try EventStreamClient(port: server.httpPort) }
        for stream in streams { _ = try stream.event() }
        let reply = try Self.get(server, "/metrics", token: Self.token)
        #expect(reply.header("Content-Type") == "text/plain; version=0.0.4; charset=utf-8")
        let metrics = try PrometheusParser.samples(reply.text)
        let stats = values(try cashier.command("STATS"))
        let stock = values(try cashier.command("STOCK"))
        #expect(metrics["juice_orders_served_total"] == 2 && stats["orders_served"] == 2)
        #expect(metrics["juice_orders_refused_total"] == 2 && stats["orders_refused"] == 2)
        #expect(metrics["juice_seq"] == 3 && stats["seq"] == 3)
        for juice in ["strawberry", "banana", "kiwi", "pineapple", "strawberry-banana", "mango", "mango-kiwi"] {
            #expect(metrics["juice_sold_total{juice=\"\(juice)\"}"].map(Int.init) == stats["sold_\(juice)"], "sold \(juice)")
            #expect(metrics["juice_lost_total{juice=\"\(juice)\"}"].map(Int.init) == stats["lost_\(juice)"], "lost \(juice)")
        }
        #expect(stats["lost_strawberry"] == 1 && stats["lost_banana"] == 9 && stats["sold_banana"] == 3)
        for fruit in EventStreamTests.fruits {
            #expect(metrics["juice_short_total{fruit=\"\(fruit)\"}"].map(Int.init) == stats["short_\(fruit)"], "short \(fruit)")
            #expect(metrics["juice_fruit_stock{fruit=\"\(fruit)\"}"].map(Int.init) == stock[fruit], "stock \(fruit)")
        }
        #expect(stats["short_strawberry"] == 1 && stats["short_banana"] == 1 && stock["kiwi"] == 13)
        #expect(metrics["juice_clients{kind=\"events\"}"] == 2)
        #expect(metrics["juice_clients{kind=\"line\"}"] == 1)
        streams[0].close()
        #expect(eventually {
            (try? PrometheusParser.samples(Self.get(server, "/metrics", token: Self.token).text))?["juice_clients{kind=\"events\"}"] == 1
        })
    }

    /// /sales: sold and lost per juice and short per fruit (after an OUT_OF_STOCK refusal), in
    /// menu order, and the orders of each minute of the last hour.
    @Test func salesShowSoldLostShortAndOrdersPerMinute() throws {
        let server = try Self.server()
        let cashier = try server.client()
        // With a token, orders come from a paired till or the manager.
        #expect(try cashier.command("AUTH \(Self.token)") == "OK AUTH")
        #expect(try cashier.command("ORDER mango 2").hasPrefix("OK ORDER"))
        #expect(try cashier.command("ORDER strawberry") == "ERR OUT_OF_STOCK needs strawberry=16 has strawberry=10")
        #expect(try cashier.command("ORDER mango 3") == "ERR OUT_OF_STOCK needs mango=9 has mango=4")
        let sales = try Self.get(server, "/sales", token: Self.token).json()
        #expect(sales["seq"] as? Int == 1 && sales["orders_served"] as? Int == 1 && sales["orders_refused"] as? Int == 2)
        let juices = try #require(sales["juices"] as? [[String: Any]])
        #expect(juices.compactMap { $0["name"] as? String }
            == ["strawberry", "banana", "kiwi", "pineapple", "strawberry-banana", "mango", "mango-kiwi"])
        let byJuice = Dictionary(uniqueKeysWithValues: juices.map { ($0["name"] as? String ?? "?", $0) })
        #expect(byJuice["mango"]?["sold"] as? Int == 2 && byJuice["mango"]?["lost"] as? Int == 3)
        #expect(byJuice["strawberry"]?["sold"] as? Int == 0 && byJuice["strawberry"]?["lost"] as? Int == 1)
        #expect(byJuice["mango"]?["aliases"] as? [String] == ["망고쥬스"])
        #expect(juices.filter { !["mango", "strawberry"].contains($0["name"] as? String) }
            .allSatisfy { $0["sold"] as? Int == 0 && $0["lost"] as? Int == 0 })
        let fruits = try #require(sales["fruits"] as? [[String: Any]])
        #expect(fruits.compactMap { $0["name"] as? String } == EventStreamTests.fruits)
        #expect(fruits.map { "\($0["name"] ?? "?")=\($0["stock"] ?? "?")/\($0["short"] ?? "?")" }
            == ["strawberry=10/1", "banana=10/0", "pineapple=10/0", "kiwi=10/0", "mango=4/1"])
        #expect(fruits.first?["aliases"] as? [String] == ["딸기"])
        let minutes = try #require(sales["per_minute"] as? [[String: Int]])
        #expect(minutes.count == 61, "the last 60 whole minutes and the current one")
        let starts = minutes.compactMap { $0["t"] }
        #expect(starts.allSatisfy { $0 % 60 == 0 } && zip(starts, starts.dropFirst()).allSatisfy { $1 - $0 == 60 })
        let now = Int(Date().timeIntervalSince1970)
        #expect(starts.last.map { $0 <= now && now < $0 + 120 } == true, "the current minute is last: \(starts.last ?? 0) vs \(now)")
        #expect(minutes.reduce(0) { $0 + ($1["served"] ?? 0) } == 1)
        #expect(minutes.reduce(0) { $0 + ($1["refused"] ?? 0) } == 2)
    }
}

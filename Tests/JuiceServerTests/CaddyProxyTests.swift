import Foundation
import Testing

/// The shop's setup end to end: juice-server behind a real Caddy on HTTPS with its local CA
/// (`tls internal`), curl trusting that CA. Sales, reads and the live event stream go through
/// the proxy, and with `--trusted-proxy` each client behind it is its own address to the AUTH
/// lockout. (Chromium on the till through Caddy: Tests/browser/test_caddy.py.)
@Suite(.onOwnThreads) struct CaddyProxyTests {
    static let token = "s3cret"

    /// The server as deploy/juice-server.service runs it, on a data directory of its own
    /// (named after `name`), behind Caddy on 127.0.0.1: `body` gets both and the directory.
    static func withServerBehindCaddy(_ name: String, _ body: (ExecutableServer, CaddyProxy, _ dir: String) throws -> Void) throws {
        try OutsideTool.caddy.require()
        let dir = temporaryDirectory(name)
        defer { removeTemporary(dir) }
        let server = try ExecutableServer(["--data", dir, "--trusted-proxy", "127.0.0.1/32"], environment: ["JUICE_MANAGER_TOKEN": token])
        defer { server.stop() }
        try body(server, try CaddyProxy(upstreamPort: server.httpPort), dir)
    }

    @Test(.requires(.caddy))
    func curlSellsReadsStateAndSeesTheEventThroughCaddy() throws {
        try Self.withServerBehindCaddy("juice-caddy-data") { server, caddy, dir in
            var session: [String] = []
            func curl(_ arguments: [String]) throws -> String {
                let result = try caddy.curl(arguments)
                session.append("$ curl --cacert root.crt " + arguments.map { $0.contains(" ") || $0.contains("{") ? "'\($0)'" : $0 }.joined(separator: " "))
                session.append(result.output)
                #expect(result.status == 0, "curl \(arguments): \(result.output)")
                return result.output
            }

            let state = try curl([caddy.url + "/state"])
            #expect(state.hasPrefix(#"{"seq":0,"#), "\(state)")

            // A browser's event stream, through the proxy, open before the sale.
            let events = try ChildProcess(try #require(OutsideTool.onPath("curl")), caddy.curlOptions + ["-N", caddy.url + "/events"], directory: dir)
            defer { events.killNow() }
            #expect(eventually { events.output.contains("id: 0\nevent: stock\n") }, "no full state came through: \(events.output) \(events.errors)")

            // The till is paired once, through the proxy, with a code the manager made.
            let made = try curl(["-H", "Content-Type: application/json", "-H", "Authorization: Bearer \(Self.token)",
                                 "-d", #"{"name":"Front till"}"#, caddy.url + "/tills/codes"])
            let code = try #require(made.split(separator: "\"").drop { $0 != "code" }.dropFirst(2).first, "\(made)")
            let paired = try curl(["-H", "Content-Type: application/json", "-d", "{\"code\":\"\(code)\"}", caddy.url + "/tills/pair"])
            let credential = try #require(paired.split(separator: "\"").drop { $0 != "credential" }.dropFirst(2).first, "\(paired)")
            let sale = try curl(["-H", "Content-Type: application/json", "-H", "Idempotency-Key: till1-1", "-H", "Juice-Till: \(credential)",
                                 "-d", #"{"juice":"mango-kiwi","count":2}"#, caddy.url + "/orders"])
            #expect(sale == #"{"ok":true,"juice":"mango-kiwi","count":2,"seq":1,"stock":{"mango":6,"kiwi":8},"amount":11000,"dup":false}"#)
            // Sent again with its key (a till that lost the answer): applied once.
            let retry = try curl(["-H", "Content-Type: application/json", "-H", "Idempotency-Key: till1-1", "-H", "Juice-Till: \(credential)",
                                  "-d", #"{"juice":"mango-kiwi","count":2}"#, caddy.url + "/orders"])
            #expect(retry.hasSuffix(#""dup":true}"#), "\(retry)")
            let event = #"id: 1\#nevent: stock\#ndata: {"seq":1,"stock":{"mango":6,"kiwi":8}}"#
            #expect(eventually { events.output.contains(event) }, "the sale's event did not come through: \(events.output)")
            session.append("$ curl --cacert root.crt -N \(caddy.url)/events   (running before the sale)")
            session.append(events.output)
            events.killNow()
            #expect(try curl([caddy.url + "/state"]).hasPrefix(#"{"seq":1,"#))
            #expect(try server.client().command("STOCK mango") == "OK STOCK seq=1 mango=6")
            print("A session through Caddy (\(caddy.url), its local CA in root.crt):\n" + session.joined(separator: "\n"))
        }
    }

    /// Caddy sets `X-Forwarded-For` to the address each client connects from (curl bound to
    /// 127.0.0.2 or 127.0.0.3: two hosts), replacing whatever the client sent. Ten wrong
    /// tokens from one lock out that one only.
    @Test(.requires(.caddy))
    func tenWrongTokensThroughCaddyLockOutThatClientOnly() throws {
        try Self.withServerBehindCaddy("juice-caddy-auth") { server, caddy, _ in
            func metrics(from client: String, token: String, headers: [String] = []) throws -> String {
                let result = try caddy.curl(["--interface", client, "-w", "\n%{http_code}", "-H", "Authorization: Bearer \(token)"]
                                            + headers.flatMap { ["-H", $0] } + [caddy.url + "/metrics"])
                #expect(result.status == 0, "\(result.output)")
                return result.output
            }
            for _ in 0..<10 { #expect(try metrics(from: "127.0.0.2", token: "wrong").hasSuffix("\n401")) }
            let locked = try metrics(from: "127.0.0.2", token: Self.token)
            #expect(locked.hasPrefix("too many failures, retry in ") && locked.hasSuffix("\n401"), "\(locked)")
            #expect(try metrics(from: "127.0.0.3", token: Self.token).hasSuffix("\n200"))
            // A client cannot pass for another: Caddy replaces the header it sends.
            #expect(try metrics(from: "127.0.0.3", token: Self.token, headers: ["X-Forwarded-For: 127.0.0.2"]).hasSuffix("\n200"))
            #expect(server.logShows("HTTP /metrics refused for 127.0.0.2 (via 127.0.0.1:"), "\(server.log())")
            #expect(server.logShows("AUTH from 127.0.0.2: 10 wrong tokens within 60 s"), "\(server.log())")
        }
    }
}

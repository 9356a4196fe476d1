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

/// Capacity that no stranger can take (issue 31): anonymous connections have a share per address
/// by default, counted per forwarded client behind a trusted proxy; known clients (the manager,
/// paired tills) have a reserve anonymous ones never fill; anonymous connections that show no
/// life are closed by default, and an event stream whose client reads is alive. Limits are made
/// small by configuration, so a few dozen connections show what thousands would.
@Suite(.onOwnThreads) struct CapacityTests {
    static let token = "s3cret"

    /// An HTTP connection from 127.0.0.1 (the trusted proxy) whose request names `client` in
    /// `X-Forwarded-For`, kept alive; returns it with the answer's status line.
    static func proxied(_ port: Int, _ target: String, client: String) throws -> (LineClient, String) {
        let connection = try LineClient.peer(port: port)
        try connection.sendRaw(Array("GET \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Forwarded-For: \(client)\r\n\r\n".utf8))
        return (connection, try connection.readLine())
    }

    /// Behind the trusted proxy 127.0.0.1, with the manager's token: a share of one connection
    /// per client, and no probation slot past it.
    static func shareOfOneBehindTheProxy(_ config: inout ServerConfig) {
        config.managerToken = Array(token.utf8)
        config.trustedProxies = [AddressRange("127.0.0.1/32")!]
        config.maxClientsPerAddress = 1
        config.probationPerAddress = 0
    }

    /// A server with the manager's token, `maxClients` slots of which `reserved` are kept for
    /// known clients, no per-address share and a probation of 1 s, whose anonymous slots are
    /// full: `flood` idle connections from 127.0.0.2 were opened, and those past the anonymous
    /// slots have left. `body` gets the server and its HTTP port.
    static func withAnonymousSlotsFull(maxClients: Int, reserved: Int, flood: Int,
                                       _ body: (RunningServer, _ http: Int) async throws -> Void) async throws {
        try await RunningServer.with({
            $0.managerToken = Array(token.utf8)
            $0.maxClients = maxClients
            $0.reservedClients = reserved
            $0.maxClientsPerAddress = nil
            $0.probationSeconds = 1
        }) { s in
            let http = try #require(await s.server.httpPort)
            let idle = try (0..<flood).map { _ in try LineClient(port: s.port, readGreeting: false, sendTimeout: 30, from: "127.0.0.2") }
            // Every one accepted first (each is greeted at its accept, on probation too). Counted
            // while the server was still accepting them, the clients could pass through the
            // anonymous slots' number on their way up; those accepted after it then held the
            // reserve on probation while the test went on as if it were free.
            let greeted = await settles { idle.allSatisfy { $0.bufferedBytes > 0 || $0.fill(waitMilliseconds: 0) } }
            #expect(greeted, "not every idle connection was accepted")
            let settled = await eventually { await s.server.clientCount == maxClients - reserved }
            let count = await s.server.clientCount
            #expect(settled, "clients: \(count)")
            try await body(s, http)
            withExtendedLifetime(idle) {}
        }
    }

    /// Attack: through the shop's proxy, one client opened more `/events` streams than the server
    /// has slots, and held them all: the proxy's address was exempt from the per-address limit,
    /// and tills got `503 busy` and `ERR BUSY`. Now each stream is counted for the client the
    /// proxy names: that client gets its share and `503` past it, and everyone else is served.
    @Test func eventStreamsThroughATrustedProxyAreCountedPerForwardedClient() async throws {
        try await RunningServer.with({
            $0.managerToken = Array(Self.token.utf8)
            $0.trustedProxies = [AddressRange("127.0.0.1/32")!]
            $0.maxClients = 40
            $0.reservedClients = 8
            $0.maxClientsPerAddress = 5
        }) { s in
            let http = try #require(await s.server.httpPort)
            var held: [LineClient] = []
            var refused = 0
            for _ in 0..<45 {
                let (connection, status) = try Self.proxied(http, "/events", client: "203.0.113.7")
                if status.contains(" 200 ") {
                    held.append(connection)
                } else {
                    #expect(status.contains(" 503 "), "\(status)")
                    refused += 1
                }
            }
            #expect(held.count == 5 && refused == 40, "held \(held.count), refused \(refused)")
            // The manager signs in and writes over TCP; a till behind the proxy pairs and sells.
            let manager = try s.client()
            #expect(try manager.command("AUTH \(Self.token)") == "OK AUTH")
            let made = try manager.command("TILLS NEW Terrace")
            let code = try #require(made.split(separator: " ").first { $0.hasPrefix("code=") }).dropFirst(5)
            let paired = try HTTPClient.exchange(port: http, HTTPClient.postRequest(port: http, "/tills/pair", json: "{\"code\":\"\(code)\"}",
                                                                                     headers: ["X-Forwarded-For: 198.51.100.4"]))
            let credential = try #require(try paired.json()["credential"] as? String)
            let sale = try HTTPClient.exchange(port: http, HTTPClient.postRequest(port: http, "/orders", json: #"{"juice":"banana"}"#,
                                                                                   headers: ["X-Forwarded-For: 198.51.100.4", "Juice-Till: \(credential)"]))
            #expect(sale.status == 200, "\(sale.status) \(sale.text)")
            #expect(try manager.command("RESTOCK kiwi 5").hasPrefix("OK RESTOCK"))
            // The held streams are streams: they get the change.
            for stream in held.prefix(1) {
                #expect(eventually { stream.fill(waitMilliseconds: 100); return stream.drainLines().contains { $0.hasPrefix("data:") && $0.contains("kiwi") } })
            }
        }
    }

    /// A proxy reuses its connections for many clients: each request is counted for the client
    /// it names, so a connection moves from one client's share to another's. The proxy's own
    /// line connections are its own address's (the line protocol names no one).
    @Test func aProxysConnectionIsCountedForEachRequestsClient() async throws {
        try await RunningServer.with(Self.shareOfOneBehindTheProxy) { s in
            let http = try #require(await s.server.httpPort)
            let (first, firstStatus) = try Self.proxied(http, "/events", client: "203.0.113.1")
            #expect(firstStatus.contains(" 200 "))
            // Same client, second stream: over its share of 1.
            let (_, again) = try Self.proxied(http, "/events", client: "203.0.113.1")
            #expect(again.contains(" 503 "), "\(again)")
            // Other clients, through the same proxy address: each its own share.
            for n in 2...4 {
                let (_, status) = try Self.proxied(http, "/events", client: "203.0.113.\(n)")
                #expect(status.contains(" 200 "), "\(status)")
            }
            // The first client's stream leaves: its share comes back.
            first.close()
            #expect(eventually { (try? Self.proxied(http, "/events", client: "203.0.113.1").1.contains(" 200 ")) ?? false })
            // A line client from the proxy's address counts as that address.
            let line = try LineClient(port: s.port, from: "127.0.0.1")
            #expect(try line.command("PING") == "OK PONG")
            let second = try LineClient(port: s.port, readGreeting: false, from: "127.0.0.1")
            #expect(second.nextLine() == .got("ERR BUSY too many connections from your address"))
        }
    }

    /// Attack: 10,000 idle connections (one address or many) took every slot, locking out the
    /// tills, and `/healthz` answered 503 for as long as they stayed. Now anonymous connections
    /// fill only their pool: a new connection gets a reserved slot on probation, and the
    /// manager's `AUTH` makes it known for good; a stranger's probation ends in `ERR BUSY`; and
    /// `/healthz` is answered (and closed) even so.
    @Test func withTheAnonymousSlotsFullTheManagerStillGetsInAndHealthzAnswers() async throws {
        // As many idle connections as there are slots, from another address: 50 stay.
        try await Self.withAnonymousSlotsFull(maxClients: 60, reserved: 10, flood: 60) { s, http in
            let manager = try s.client()
            #expect(try manager.command("AUTH \(Self.token)") == "OK AUTH")
            #expect(try manager.command("RESTOCK kiwi 5").hasPrefix("OK RESTOCK"))
            let health = try HTTPClient.get(port: http, "/healthz")
            #expect(health.status == 200 && health.text.hasPrefix("ok"), "\(health.status) \(health.text)")
            // A stranger gets in on probation too, and out again: it never signs in.
            let stranger = try LineClient(port: s.port, readGreeting: false, sendTimeout: 30, from: "127.0.0.3")
            let lines = stranger.linesUntilClosed()
            #expect(lines.first?.hasPrefix("EVENT HELLO") == true && lines.last == "ERR BUSY max clients reached", "\(lines)")
            // The manager's probation ended long before: it stays, and writes.
            #expect(try manager.command("RESTOCK kiwi 1").hasPrefix("OK RESTOCK"))
            let settled51 = await eventually { await s.server.clientCount == 51 }
            let count51 = await s.server.clientCount
            #expect(settled51, "clients: \(count51)")
        }
    }

    /// The same through the built server with its default flags (only `--max-clients` made
    /// small): ten hosts hold their default share of 32 idle connections each, more than the
    /// anonymous slots; the manager still signs in and writes, `/healthz` answers, and a
    /// newcomer that does not sign in is refused after its probation.
    @Test func theBuiltServerWithDefaultFlagsKeepsItsReserve() throws {
        let server = try ExecutableServer(["--in-memory", "--max-clients", "300"], environment: ["JUICE_MANAGER_TOKEN": Self.token])
        var idle: [LineClient] = []
        for host in 2...11 {
            for _ in 0..<32 { idle.append(try LineClient(port: server.port, readGreeting: false, sendTimeout: 30, from: "127.0.0.\(host)")) }
        }
        let watcher = try server.peer()
        #expect(server.logShows("refused 127.0.0."), "no connection was refused: \(server.log().suffix(400))")
        let manager = try server.client()
        #expect(manager.ask("AUTH \(Self.token)") == "OK AUTH")
        #expect(manager.ask("RESTOCK kiwi 5").hasPrefix("OK RESTOCK"))
        let health = try HTTPClient.get(port: server.httpPort, "/healthz")
        #expect(health.status == 200, "\(health.status) \(health.text)")
        let lines = watcher.linesUntilClosed()
        #expect(lines.last?.hasPrefix("ERR BUSY") == true, "\(lines)")
        #expect(manager.ask("PING") == "OK PONG")
        _ = idle
    }

    /// A manager over HTTP signs in with `Bearer` on a probation slot and keeps its connection.
    @Test func aBearerRequestOnProbationMakesTheConnectionKnown() async throws {
        try await Self.withAnonymousSlotsFull(maxClients: 20, reserved: 4, flood: 16) { s, http in
            // Without credentials, a request on probation is refused.
            let anonymous = try HTTPClient.get(port: http, "/state")
            #expect(anonymous.status == 503, "\(anonymous.status)")
            let dashboard = try LineClient.peer(port: http)
            let ask = "GET /sales HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(Self.token)\r\n\r\n"
            try dashboard.sendRaw(Array(ask.utf8))
            #expect(try HTTPClient.readReply(dashboard).status == 200)
            // Past its probation, the same connection is still served.
            let stranger = try LineClient(port: s.port, readGreeting: false, sendTimeout: 30, from: "127.0.0.3")
            #expect(stranger.waitClosed())
            try dashboard.sendRaw(Array(ask.utf8))
            #expect(try HTTPClient.readReply(dashboard).status == 200)
        }
    }

    /// Behind a proxy, a connection is known only for the request that signed in: the proxy
    /// may send another client's request down it next, which is counted for that client.
    @Test func aProxysConnectionIsKnownOnlyForTheRequestThatSignedIn() async throws {
        try await RunningServer.with(Self.shareOfOneBehindTheProxy) { s in
            let http = try #require(await s.server.httpPort)
            let (stream, status) = try Self.proxied(http, "/events", client: "203.0.113.9")
            #expect(status.contains(" 200 "))
            let pooled = try LineClient.peer(port: http)
            let manager = "GET /sales HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Forwarded-For: 198.51.100.1\r\nAuthorization: Bearer \(Self.token)\r\n\r\n"
            try pooled.sendRaw(Array(manager.utf8))
            #expect(try HTTPClient.readReply(pooled).status == 200)
            // The stream's client, over its share of 1, on the connection the manager signed in on.
            try pooled.sendRaw(Array("GET /state HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Forwarded-For: 203.0.113.9\r\n\r\n".utf8))
            #expect(try HTTPClient.readReply(pooled).status == 503)
            _ = stream
        }
    }

    /// Attack: `--idle-timeout` did not help, because event streams were exempt from it. Now an
    /// anonymous connection's sign of life is what it sends or what its socket takes: a stream
    /// whose client reads takes its events and `: ping`s and stays past the timeout; one whose
    /// client stopped reading takes nothing once the buffers are full, and is closed, as is a
    /// line client that sends nothing.
    @Test func aStreamThatIsReadStaysPastTheIdleTimeoutAndOneThatIsNotIsClosed() async throws {
        try await RunningServer.with({ $0.idleTimeoutSeconds = 3; $0.eventStreamPingEvery = 1 }) { s in
            let http = try #require(await s.server.httpPort)
            // History for a resuming stream to be owed: far more than the buffers between it
            // and a client that does not read.
            let writer = try s.client()
            #expect(try writer.command("EVENTS OFF").hasPrefix("OK"))
            try writer.sendRaw(Array(String(repeating: "RESTOCK kiwi 1\r\n", count: 3000).utf8))
            for _ in 0..<3000 { #expect(try writer.reply().hasPrefix("OK RESTOCK")) }
            writer.close()
            let stalled = try EventStreamClient(port: http, lastEventID: "1", receiveBuffer: 1024, readHead: false)
            let silent = try LineClient.peer(port: s.port)
            let reading = try EventStreamClient(port: http)
            let readerClosed = Locked(false)
            let done = Locked(false)
            // The reader reads everything that comes (the state, then pings) until told to stop.
            let thread = Thread {
                while !done.get {
                    if case .closed = reading.nextBlock(timeout: 0.5) { readerClosed.update { $0 = true }; return }
                }
            }
            thread.start()
            // The silent one and the stalled one go; the reading one stays.
            #expect(silent.waitClosed())
            let settled1 = await eventually { await s.server.clientCount == 1 }
            let count1 = await s.server.clientCount
            #expect(settled1, "clients: \(count1)")
            done.update { $0 = true }
            #expect(eventually { thread.isFinished })
            #expect(!readerClosed.get)
            if case .got = reading.nextBlock() {} else { Issue.record("the stream that was read was closed") }
            // The stalled one was closed by the server: what it was sent, then the end.
            #expect(stalled.connection.waitClosed())
        }
    }

    /// With default flags, one address holds at most 32 anonymous connections: the next is
    /// refused (here after its probation, which it does not use to sign in).
    @Test func theDefaultShareOfOneAddress() async throws {
        try await RunningServer.with({ $0.probationSeconds = 1 }) { s in
            let held = try (0..<32).map { _ in try LineClient(port: s.port, from: "127.0.0.2") }
            let next = try LineClient(port: s.port, readGreeting: false, sendTimeout: 30, from: "127.0.0.2")
            let lines = next.linesUntilClosed()
            #expect(lines.last == "ERR BUSY too many connections from your address", "\(lines)")
            // Another address is not affected.
            let other = try LineClient(port: s.port, from: "127.0.0.3")
            #expect(try other.command("PING") == "OK PONG")
            for c in held.prefix(3) { #expect(try c.command("PING") == "OK PONG") }
        }
    }
}

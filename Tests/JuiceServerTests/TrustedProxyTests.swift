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

/// `--trusted-proxy`: who an HTTP request comes from behind a reverse proxy. Only a trusted peer's
/// `X-Forwarded-For` / `Forwarded` is read, right to left, and the client it names is who the
/// per-address rules count; from anyone else the headers change nothing.
@Suite(.onOwnThreads) struct TrustedProxyTests {
    static let proxies = TrustedProxies([AddressRange("127.0.0.1/32")!, AddressRange("10.0.0.0/8")!])

    /// A `GET` of `path` with these header fields, as the server reads it.
    static func request(_ headers: [(String, String)], path: String = "/metrics") -> HTTPRequest {
        let head = "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\n" + headers.map { "\($0.0): \($0.1)\r\n" }.joined() + "\r\n"
        switch HTTPRequestReader.parse(Array(head.utf8)[...]) {
        case .success(let request): return request
        case .failure(let refused): preconditionFailure("the test's request was refused: \(refused.message)")
        }
    }

    static func client(_ headers: [(String, String)], peer: String = "127.0.0.1:5000") -> RequestClient {
        RequestClient(request(headers), peer: peer, proxies: proxies)
    }

    static func xff(_ value: String, peer: String = "127.0.0.1:5000") -> String {
        client([("x-forwarded-for", value)], peer: peer).address
    }

    @Test func rangesParseAndMatch() throws {
        let eight = try #require(AddressRange("10.1.2.3/8"))
        #expect(eight == AddressRange("10.0.0.0/8") && eight.description == "10.0.0.0/8")
        #expect(eight.contains(IPAddress.parse("10.255.0.1")!) && !eight.contains(IPAddress.parse("11.0.0.1")!))
        #expect(AddressRange("fd00::/8")!.contains(IPAddress.parse("fd12::1")!))
        #expect(!AddressRange("fd00::/8")!.contains(IPAddress.parse("10.0.0.1")!))
        #expect(AddressRange("127.0.0.1")!.description == "127.0.0.1/32")
        #expect(AddressRange("0.0.0.0/0")!.contains(IPAddress.parse("203.0.113.7")!))
        #expect(AddressRange("::1")!.description == "::1/128")
        for bad in ["", "/8", "10.0.0.0/", "10.0.0.0/33", "::/129", "10.0.0.0/8x", "10.0.0.0/-1", "shop.local",
                    "localhost", "10.0.0.0/8/8", "10.0.0.0:80/8", "[::1]:80/128"] {
            #expect(AddressRange(bad) == nil, "'\(bad)' was taken")
        }
        // A peer on an IPv6 listener that is an IPv4 client, and peers with ports.
        #expect(Self.proxies.trusts(peer: "[::ffff:127.0.0.1]:4000"))
        #expect(Self.proxies.trusts(peer: "10.9.8.7:4000") && !Self.proxies.trusts(peer: "127.0.0.2:4000"))
    }

    @Test func theClientIsTheRightMostAddressThatIsNoTrustedProxy() {
        #expect(Self.xff("203.0.113.7") == "203.0.113.7")
        // Left of the client is what the client wrote: never believed.
        #expect(Self.xff("198.51.100.1, 203.0.113.7") == "203.0.113.7")
        // A trusted proxy in between (10.0.0.0/8) is skipped.
        #expect(Self.xff("198.51.100.1,203.0.113.7, 10.1.1.1") == "203.0.113.7")
        #expect(Self.xff("2001:db8::1") == "[2001:db8::1]")
        #expect(Self.xff("::ffff:203.0.113.9") == "203.0.113.9")
        // Every hop a trusted proxy: the left-most one.
        #expect(Self.xff("10.0.0.5, 10.0.0.6") == "10.0.0.5")
        // A hop that is no address stops the walk at the nearest one known.
        #expect(Self.xff("garbage") == "127.0.0.1:5000")
        #expect(Self.xff("203.0.113.7, unknown, 10.0.0.2") == "10.0.0.2")
        // Two fields are one list, in order.
        let twoFields = Self.client([("x-forwarded-for", "198.51.100.1"), ("x-forwarded-for", "203.0.113.7, 10.0.0.2")])
        #expect(twoFields.address == "203.0.113.7")
        #expect(twoFields.description == "203.0.113.7 (via 127.0.0.1:5000)")
    }

    @Test func forwardedIsReadWhenThereIsNoXForwardedFor() {
        #expect(Self.client([("forwarded", "for=192.0.2.60;proto=https;by=203.0.113.43")]).address == "192.0.2.60")
        #expect(Self.client([("forwarded", #"for="[2001:db8:cafe::17]:4711""#)]).address == "[2001:db8:cafe::17]")
        #expect(Self.client([("forwarded", "For=198.51.100.1, for=10.0.0.3")]).address == "198.51.100.1")
        #expect(Self.client([("forwarded", "for=198.51.100.1, proto=https")]).address == "127.0.0.1:5000")
        // With both, X-Forwarded-For: what the usual proxies set (and may pass the other through).
        #expect(Self.client([("forwarded", "for=192.0.2.60"), ("x-forwarded-for", "203.0.113.7")]).address == "203.0.113.7")
    }

    @Test func fromAnyoneElseTheHeadersChangeNothing() {
        #expect(Self.xff("203.0.113.7", peer: "192.0.2.99:4000") == "192.0.2.99:4000")
        #expect(Self.client([("forwarded", "for=203.0.113.7")], peer: "[2001:db8::9]:4000").address == "[2001:db8::9]:4000")
        let none = RequestClient(Self.request([("x-forwarded-for", "203.0.113.7")], path: "/"), peer: "127.0.0.1:5000", proxies: TrustedProxies([]))
        #expect(none.address == "127.0.0.1:5000" && none.description == "127.0.0.1:5000")
    }

    @Test func theFlagIsRepeatableAndChecked() throws {
        guard case .success(.run(let c)) = CommandLineOptions.parse(["--trusted-proxy", "127.0.0.1/32", "--trusted-proxy", "fd00::/8"]) else {
            Issue.record("refused")
            return
        }
        #expect(c.trustedProxies.map(\.description) == ["127.0.0.1/32", "fd00::/8"])
        guard case .success(.run(let defaults)) = CommandLineOptions.parse([]) else { return }
        #expect(defaults.trustedProxies.isEmpty)
        guard case .failure(let error) = CommandLineOptions.parse(["--trusted-proxy", "caddy.local"]) else {
            Issue.record("a name was taken")
            return
        }
        #expect(error.description.contains("--trusted-proxy needs an address or ADDR/PREFIX"))
        #expect(CommandLineOptions.help.contains("--trusted-proxy ADDR/PREFIX"))
    }

    // MARK: Over sockets

    static let wrongToken = "Authorization: Bearer wrong"
    static let rightToken = "Authorization: Bearer s3cret"

    static func metrics(_ http: Int, _ headers: [String], from: String? = nil) throws -> HTTPReply {
        let head = "GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n" + headers.map { $0 + "\r\n" }.joined() + "\r\n"
        return try HTTPClient.exchange(port: http, Array(head.utf8), from: from)
    }

    /// Behind a trusted proxy (here 127.0.0.2), ten wrong tokens from one client lock out that
    /// client only: another client behind the same proxy, and the proxy itself, still get in.
    /// The same header sent straight from 127.0.0.1 (no proxy) is not believed.
    @Test func wrongTokensLockOutTheForwardedClientNotTheProxy() async throws {
        try await RunningServer.with({ $0.managerToken = Array("s3cret".utf8); $0.trustedProxies = [AddressRange("127.0.0.2/32")!] }) { s in
            let http = try #require(await s.server.httpPort)
            for _ in 0..<10 {
                #expect(try Self.metrics(http, [Self.wrongToken, "X-Forwarded-For: 203.0.113.7"], from: "127.0.0.2").status == 401)
            }
            let locked = try Self.metrics(http, [Self.rightToken, "X-Forwarded-For: 203.0.113.7"], from: "127.0.0.2")
            #expect(locked.status == 401 && locked.text.contains("too many failures"), "\(locked.text)")
            #expect(try Self.metrics(http, [Self.rightToken, "X-Forwarded-For: 203.0.113.8"], from: "127.0.0.2").status == 200)
            #expect(try Self.metrics(http, [Self.rightToken], from: "127.0.0.2").status == 200)
            // 127.0.0.1 is no proxy: its header is ignored, and it was never locked out.
            #expect(try Self.metrics(http, [Self.rightToken, "X-Forwarded-For: 203.0.113.7"]).status == 200)
        }
    }

    /// Without `--trusted-proxy` (or from a peer it does not name), a forged `X-Forwarded-For`
    /// cannot buy a guesser fresh addresses: every wrong token counts against its real one.
    @Test(arguments: [[], ["10.0.0.0/8"]])
    func aForgedHeaderFromAnUntrustedPeerChangesNothing(trusted: [String]) async throws {
        try await RunningServer.with({ $0.managerToken = Array("s3cret".utf8); $0.trustedProxies = trusted.map { AddressRange($0)! } }) { s in
            let http = try #require(await s.server.httpPort)
            for n in 0..<10 {
                #expect(try Self.metrics(http, [Self.wrongToken, "X-Forwarded-For: 203.0.113.\(n)", "Forwarded: for=198.51.100.\(n)"]).status == 401)
            }
            let locked = try Self.metrics(http, [Self.rightToken, "X-Forwarded-For: 192.0.2.200"])
            #expect(locked.status == 401 && locked.text.contains("too many failures"), "\(locked.text)")
            // Its real address is locked; another host is not.
            #expect(try Self.metrics(http, [Self.rightToken], from: "127.0.0.2").status == 200)
        }
    }
}

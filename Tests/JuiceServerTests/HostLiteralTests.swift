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

/// Writes are taken under an IP literal because no attacker can re-point one (DNS rebinding
/// needs a name). So "is this an IP literal" must be exact: `-1.-2.-3.-4`, `+1.+2.+3.+4`,
/// `[::1]evil.com` and `127.0.0.1:evil.com` are names a browser resolves, and under them a page
/// of the attacker's is "same origin".
@Suite(.onOwnThreads) struct HostLiteralTests {
    static let attacks = ["-1.-2.-3.-4", "+1.+2.+3.+4", "[::1]evil.com", "127.0.0.1:evil.com"]

    @Test func onlyExactLiteralsAndPortsAreHostNames() {
        for host in Self.attacks + ["01.2.3.4", "1.2.3.04:80", "256.1.1.1", "1.2.3", "1.2.3.4.5", "127.0.0.1:", "127.0.0.1:0",
                                    "127.0.0.1:65536", "127.0.0.1:080", "127.0.0.1:+80", "127.0.0.1:8 0", "[::1]:", "[::1]:7879x",
                                    "[1.2.3.4]", "[::1", "[]", "[::1]]", "[::g]", "[fe80::1%25eth0]", ":7879", "localhost:-1"] {
            let name = HostCheck.hostName(host)
            #expect(name.map { !HostCheck.isIPLiteral($0) && $0 != "localhost" } ?? true, "\(host) passes as \(name ?? "-")")
        }
        let taken: [(String, String)] = [("127.0.0.1", "127.0.0.1"), ("127.0.0.1:7879", "127.0.0.1"), ("0.0.0.0:1", "0.0.0.0"),
                                         ("255.255.255.255:65535", "255.255.255.255"), ("[::1]:7879", "::1"), ("[::1]", "::1"),
                                         ("[2001:DB8::7]:80", "2001:db8::7"), ("[::ffff:10.0.0.7]:80", "::ffff:10.0.0.7"),
                                         ("localhost:7879", "localhost"), ("Shop.Local:80", "shop.local")]
        for (host, name) in taken {
            #expect(HostCheck.hostName(host) == name, "\(host)")
        }
        #expect(HostCheck.isIPLiteral("10.0.0.7") && HostCheck.isIPLiteral("::1") && HostCheck.isIPLiteral("2001:db8::7"))
        #expect(!HostCheck.isIPLiteral("-1.-2.-3.-4") && !HostCheck.isIPLiteral("+1.+2.+3.+4") && !HostCheck.isIPLiteral("1::2::3"))
    }

    /// The attack itself, over a real socket: a write whose Origin matches its Host is refused
    /// under each of those names, and taken under real literals and localhost.
    @Test func aWriteUnderALookalikeNameIsRefusedEvenWithAMatchingOrigin() throws {
        let server = try ExecutableServer(["--in-memory"])
        let http = server.httpPort
        let body = #"{"juice":"mango"}"#
        func post(host: String) throws -> HTTPReply {
            let head = "POST /orders HTTP/1.1\r\nHost: \(host)\r\nOrigin: http://\(host)\r\nContent-Type: application/json\r\n"
                + "Content-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n"
            return try HTTPClient.exchange(port: http, head + body)
        }
        for host in Self.attacks + ["[::1]evil.com:\(http)", "127.0.0.1:\(http).evil.com", "01.0.0.1:\(http)"] {
            let reply = try post(host: host)
            #expect(reply.status == 403, "Host \(host): \(reply.statusLine) \(reply.text)")
            #expect(try reply.json()["error"] as? String == "FORBIDDEN")
        }
        #expect(try server.client().command("STOCK mango") == "OK STOCK seq=0 mango=10")
        for host in ["127.0.0.1:\(http)", "[::1]:\(http)", "localhost:\(http)"] {
            let reply = try post(host: host)
            #expect(reply.status == 200, "Host \(host): \(reply.statusLine) \(reply.text)")
        }
        #expect(try server.client().command("STOCK mango") == "OK STOCK seq=3 mango=1")
    }
}

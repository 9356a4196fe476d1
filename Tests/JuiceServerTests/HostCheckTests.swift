@testable import JuiceServer
import Testing

/// `HostCheck.refusal` takes a plain IPv4 `Host` without an `Origin` on a fast path (every
/// write asks); it must decide exactly as the general check does, whatever the Host.
@Suite struct HostCheckTests {
    @Test func theFastPathDecidesAsTheGeneralCheck() {
        let hosts = ["127.0.0.1", "127.0.0.1:7879", "10.0.0.255:80", "0.0.0.0", "1.2.3.4:", "1.2.3.4:x", "256.1.1.1",
                     "1.2.3", "1.2.3.4.5", "1..3.4", "01.002.3.4", "0001.2.3.4", "1.2.3.4a", "+1.2.3.4", "١.2.3.4",
                     "[::1]:7879", "::1", "localhost:7879", "LOCALHOST", "shop.local", "Shop.Local:80", "evil.example",
                     "", ":7879", "1.2.3.-4", " 1.2.3.4", "1.2.3.4 "]
        for host in hosts {
            for origin in [nil, "http://\(host)", "http://evil.example"] as [String?] {
                #expect(HostCheck.refusal(host: host, origin: origin, allowed: ["shop.local"])
                        == HostCheck.checked(host: host, origin: origin, allowed: ["shop.local"]), "Host \(host) Origin \(origin ?? "-")")
            }
        }
        #expect(HostCheck.refusal(host: "127.0.0.1:7879", origin: nil, allowed: []) == nil)
        #expect(HostCheck.refusal(host: "evil.example", origin: nil, allowed: []) != nil)
        #expect(HostCheck.refusal(host: nil, origin: nil, allowed: []) != nil)
    }
}

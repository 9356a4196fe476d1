#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Who a connection comes from, as far as per-address rules go. The peer is what `Socket.accept()`
/// describes with `SocketAddress`: "1.2.3.4:5678" or "[2001:db8::7]:5678".
package enum PeerAddress {
    /// The host part, without the port: "1.2.3.4:5678" is "1.2.3.4", "[::1]:5678" is "::1".
    /// Connections from one host share it whatever their port (`--max-clients-per-address`).
    package static func host(of peer: String) -> String {
        if peer.hasPrefix("["), let close = peer.firstIndex(of: "]") {
            return String(peer[peer.index(after: peer.startIndex)..<close])
        }
        guard let colon = peer.lastIndex(of: ":") else { return peer }
        return String(peer[..<colon])
    }

    /// The client an allowance is counted for (the AUTH failure limit; the key memory's share),
    /// as a canonical string:
    /// - an IPv4 address as it is: "10.0.0.7";
    /// - an IPv6 address by its /64: "2001:db8:1:2::/64". One IPv6 host ordinarily holds a whole
    ///   /64 (SLAAC, privacy addresses), so counting single addresses would hand it 2^64
    ///   allowances; a /64 is what an ISP gives one customer's network at the least.
    /// - an IPv4-mapped IPv6 address (how a dual-stack listener sees an IPv4 client,
    ///   "::ffff:10.0.0.7") as that IPv4 address, so one client is one group on either listener;
    /// - the loopback "::1" as itself: it is one host (the server's own), not a network.
    /// A host that is not a numeric address (never, from `accept`) is its own group.
    package static func group(of peer: String) -> String {
        let host = host(of: peer)
        var v6 = in6_addr()
        guard host.contains(":"), inet_pton(AF_INET6, host, &v6) == 1 else { return host }
        var bytes = withUnsafeBytes(of: v6) { Array($0) }
        if bytes[0..<10].allSatisfy({ $0 == 0 }) && bytes[10] == 0xFF && bytes[11] == 0xFF {
            return bytes[12...].map { String($0) }.joined(separator: ".")
        }
        if bytes == Array(repeating: 0, count: 15) + [1] { return "::1" }
        for i in 8..<16 { bytes[i] = 0 }
        return text(ofIPv6: bytes) + "/64"
    }

    /// RFC 5952's text form (what `inet_ntop` writes): lowercase, zeros compressed.
    private static func text(ofIPv6 bytes: [UInt8]) -> String {
        var out = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
        bytes.withUnsafeBytes { _ = inet_ntop(AF_INET6, $0.baseAddress, &out, socklen_t(out.count)) }
        return String(decoding: out.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

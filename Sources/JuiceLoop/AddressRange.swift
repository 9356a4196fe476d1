import JuiceCore
import JuicePlatform
import JuiceLog

/// An IP address range, `ADDR/PREFIX` (`10.0.0.0/8`, `fd00::/8`, `127.0.0.1/32`; a bare address
/// is that one address): what `--trusted-proxy` takes.
public struct AddressRange: Sendable, Equatable, CustomStringConvertible {
    /// The range's first address, masked to the prefix: 4 bytes or 16.
    package let network: [UInt8]
    package let prefix: Int

    /// Nil for anything that is not an IPv4 or IPv6 address with an optional prefix length in
    /// range (0-32, 0-128). Bits past the prefix are ignored (`10.1.2.3/8` is `10.0.0.0/8`).
    public init?(_ text: String) {
        let parts = text.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard let address = IPAddress.parse(String(parts[0]), keepPort: false) else { return nil }
        let bits = address.count * 8
        var prefix = bits
        if parts.count == 2 {
            guard !parts[1].isEmpty, parts[1].count <= 3, parts[1].allSatisfy({ $0.isASCII && $0.isNumber }),
                  let n = Int(parts[1]), n <= bits else { return nil }
            prefix = n
        }
        self.prefix = prefix
        network = AddressRange.masked(address, prefix)
    }

    /// Whether `address` (4 or 16 bytes, as `IPAddress.parse` gives) is in the range.
    package func contains(_ address: [UInt8]) -> Bool {
        address.count == network.count && AddressRange.masked(address, prefix) == network
    }

    private static func masked(_ address: [UInt8], _ prefix: Int) -> [UInt8] {
        address.indices.map { i in
            let keep = min(8, max(0, prefix - i * 8))
            return keep == 0 ? 0 : address[i] & UInt8(truncatingIfNeeded: 0xFF << (8 - keep))
        }
    }

    public var description: String { "\(IPAddress.text(network))/\(prefix)" }
}

/// IP addresses as the per-address rules and `--trusted-proxy` compare them: bytes, with an
/// IPv4-mapped IPv6 address (`::ffff:10.0.0.7`, what an IPv6 listener reports for an IPv4
/// client) taken as the IPv4 address it is.
package enum IPAddress {
    /// "10.0.0.7", "2001:db8::1", "[2001:db8::1]"; with `keepPort` also "10.0.0.7:5678" and
    /// "[2001:db8::1]:5678" (peers, and `Forwarded`'s `for=` values), the port ignored.
    package static func parse(_ text: String, keepPort: Bool = true) -> [UInt8]? {
        guard !text.isEmpty, text.utf8.count <= 64, text != "localhost" else { return nil }
        var host = Substring(text)
        if host.hasPrefix("[") {
            guard let close = host.firstIndex(of: "]") else { return nil }
            let rest = host[host.index(after: close)...]
            guard rest.isEmpty || (keepPort && rest.hasPrefix(":")) else { return nil }
            host = host[host.index(after: host.startIndex)..<close]
        } else if keepPort, host.filter({ $0 == ":" }).count == 1, let colon = host.firstIndex(of: ":") {
            host = host[..<colon]   // IPv4 with a port (an IPv6 address has two colons or more)
        }
        guard let address = SocketAddress(host: String(host), port: 0) else { return nil }
        let bytes = address.addressBytes
        if bytes.count == 16, bytes[0..<10].allSatisfy({ $0 == 0 }), bytes[10] == 0xFF, bytes[11] == 0xFF {
            return Array(bytes[12...])
        }
        return bytes
    }

    /// The address as per-address rules key on it: "10.0.0.7", or "[2001:db8::1]" (bracketed,
    /// so that `PeerAddress.host` reads it whole).
    package static func key(_ bytes: [UInt8]) -> String {
        bytes.count == 4 ? text(bytes) : "[\(text(bytes))]"
    }

    /// "10.0.0.7" or "2001:db8::1".
    package static func text(_ bytes: [UInt8]) -> String {
        var text = [CChar](repeating: 0, count: 64)
        let family = bytes.count == 4 ? AF_INET : AF_INET6
        bytes.withUnsafeBytes { _ = inet_ntop(family, $0.baseAddress, &text, socklen_t(text.count)) }
        return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

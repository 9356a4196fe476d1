#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
import JuiceCore
import JuiceDomain
import JuicePlatform
import JuiceLog
import JuiceLoop
import JuiceServices
#endif

/// The exact text forms of an IP address and of a port, as a `Host` header carries them
/// (RFC 3986 §3.2.2, RFC 9110 §7.2), and nothing that merely looks like one. `HostCheck` takes
/// writes under any IP literal because no attacker can re-point one at this server (DNS
/// rebinding needs a name); a loose test let `-1.-2.-3.-4`, `+1.+2.+3.+4` or `[::1]evil.com`
/// through as IP literals, and so names a browser would resolve.
package enum IPLiteral {
    /// Dotted-quad IPv4 in canonical decimal: four groups of one to three digits, each at most
    /// 255, none with a leading zero (`010` is octal to some parsers and decimal to others, and
    /// glibc's `inet_pton` refuses it too).
    package static func isIPv4(_ bytes: some Sequence<UInt8>) -> Bool {
        var groups = 0, digits = 0, value = 0
        for b in bytes {
            if b == UInt8(ascii: ".") {
                guard digits > 0 else { return false }
                groups += 1
                digits = 0
                value = 0
            } else if b >= UInt8(ascii: "0") && b <= UInt8(ascii: "9") {
                guard digits == 0 || value != 0 else { return false }  // a leading zero
                digits += 1
                value = value * 10 + Int(b - UInt8(ascii: "0"))
                guard value <= 255 else { return false }
            } else {
                return false
            }
        }
        return groups == 3 && digits > 0
    }

    /// IPv6 in RFC 4291's text forms (`::1`, `2001:db8::7`, `::ffff:10.0.0.7`), exactly as the C
    /// library reads an address: `inet_pton`. No zone (`%eth0`): a browser does not send one.
    package static func isIPv6(_ text: some StringProtocol) -> Bool {
        // The longest form is 45 characters; bounding it also keeps a long header from being copied.
        guard text.utf8.count <= 45, text.contains(":"), !text.utf8.contains(0) else { return false }
        var address = in6_addr()
        return inet_pton(AF_INET6, String(text), &address) == 1
    }

    /// A port in a `Host` value: digits only, no leading zero, 1 to 65535.
    package static func isPort(_ bytes: some Collection<UInt8>) -> Bool {
        guard let first = bytes.first, first != UInt8(ascii: "0"), bytes.count <= 5 else { return false }
        var value = 0
        for b in bytes {
            guard b >= UInt8(ascii: "0") && b <= UInt8(ascii: "9") else { return false }
            value = value * 10 + Int(b - UInt8(ascii: "0"))
        }
        return value <= 65535
    }
}

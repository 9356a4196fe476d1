import JuiceCore
import JuiceDomain
import JuicePlatform
import JuiceLog
import JuiceLoop
import JuiceServices
/// Who may write over HTTP. A web page on another site can make a shop browser send a request
/// here (CSRF), and a name the attacker controls can be re-pointed at this server's address
/// (DNS rebinding), which makes the page "same origin" with it. So a write is taken only when:
/// - its `Origin`, if the browser sent one, is this server's own (`http://` + its `Host`, or
///   `https://` + it: the page came through an HTTPS proxy such as Caddy under the same name);
/// - its `Host` is an IP literal, `localhost`, or a name the shop allowed (`--allow-host`): a
///   rebound attacker name is none of those.
/// Reads stay open under any name (a TV may use the shop's DNS name for the board), and no CORS
/// header is ever sent, so other origins' scripts can neither read answers nor send JSON.
package enum HostCheck {
    /// Nil if the write may go ahead, else why not.
    package static func refusal(host: String?, origin: String?, allowed: [String]) -> String? {
        // A till or program naming the server by its IPv4 address, with no Origin: taken
        // without lowercasing or copying anything (the general path agrees, tested).
        if origin == nil, let host {
            let bytes = host.utf8
            if let colon = bytes.firstIndex(of: UInt8(ascii: ":")) {
                if IPLiteral.isIPv4(bytes[..<colon]), IPLiteral.isPort(bytes[bytes.index(after: colon)...]) { return nil }
            } else if IPLiteral.isIPv4(bytes) {
                return nil
            }
        }
        return checked(host: host, origin: origin, allowed: allowed)
    }

    /// `refusal` without its fast path (the tests compare the two).
    package static func checked(host: String?, origin: String?, allowed: [String]) -> String? {
        guard let host else { return "a write needs a Host header naming this server" }
        guard let name = hostName(host) else {
            return "a write needs a Host header naming this server: '\(host)' is not a name or an address with an optional port"
        }
        guard isIPLiteral(name) || name == "localhost" || allowed.contains(name) else {
            return "writes are not taken under the name '\(name)': use an IP address, localhost, or start the server with --allow-host \(name)"
        }
        if let origin, !isOwn(origin: origin.lowercased(), host: host.lowercased()) {
            return "writes are taken only from this server's own pages (Origin \(origin))"
        }
        return nil
    }

    /// `http://` or `https://` + the `Host`: the scheme is the proxy's business, the name is
    /// what a rebinding or cross-site page cannot fake.
    private static func isOwn(origin: String, host: String) -> Bool {
        origin == "http://" + host || origin == "https://" + host
    }

    /// The name in a `Host` value, lowercased and without its port (`[::1]:7879` -> `::1`); nil
    /// unless the whole value is `name`, `name:port`, `[IPv6]` or `[IPv6]:port`, with a port of
    /// digits from 1 to 65535. Nothing may follow: under `[::1]evil.com` or `127.0.0.1:evil.com`
    /// a browser reaches evil.com, so they must not count as the IP literal they start with.
    package static func hostName(_ host: String) -> String? {
        let value = host.lowercased()
        let colon: String.Index?
        let name: Substring
        if value.hasPrefix("[") {
            guard let close = value.firstIndex(of: "]") else { return nil }
            name = value[value.index(after: value.startIndex)..<close]
            // Brackets hold an IPv6 address only (RFC 3986's IPvFuture is not taken).
            guard IPLiteral.isIPv6(name) else { return nil }
            let after = value.index(after: close)
            guard after == value.endIndex || value[after] == ":" else { return nil }
            colon = after == value.endIndex ? nil : after
        } else {
            colon = value.firstIndex(of: ":")
            name = value[..<(colon ?? value.endIndex)]
        }
        if let colon, !IPLiteral.isPort(value.utf8[value.utf8.index(after: colon)...]) { return nil }
        return name.isEmpty ? nil : String(name)
    }

    /// An exact IPv4 or IPv6 literal (`IPLiteral`).
    package static func isIPLiteral(_ name: String) -> Bool {
        IPLiteral.isIPv4(name.utf8) || IPLiteral.isIPv6(name)
    }

    /// A DNS name as `--allow-host` takes it: letters, digits, `-` and `.`, 1-253 bytes.
    package static func isName(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.count <= 253 && text.utf8.allSatisfy {
            ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x41 && $0 <= 0x5A) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x2D || $0 == 0x2E
        }
    }
}

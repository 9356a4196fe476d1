/// Who may write over HTTP. A web page on another site can make a shop browser send a request
/// here (CSRF), and a name the attacker controls can be re-pointed at this server's address
/// (DNS rebinding), which makes the page "same origin" with it. So a write is taken only when:
/// - its `Origin`, if the browser sent one, is this server's own (`http://` + its `Host`, or
///   `https://` + it: the page came through an HTTPS proxy such as Caddy under the same name);
/// - its `Host` is an IP literal, `localhost`, or a name the shop allowed (`--allow-host`): a
///   rebound attacker name is none of those.
/// Reads stay open under any name (a TV may use the shop's DNS name for the board), and no CORS
/// header is ever sent, so other origins' scripts can neither read answers nor send JSON.
enum HostCheck {
    /// Nil if the write may go ahead, else why not.
    static func refusal(host: String?, origin: String?, allowed: [String]) -> String? {
        // A till or program naming the server by its IPv4 address, with no Origin: taken
        // without lowercasing or splitting anything (the general path agrees, tested).
        if origin == nil, let host, isDottedQuad(host.utf8.prefix { $0 != UInt8(ascii: ":") }) { return nil }
        return checked(host: host, origin: origin, allowed: allowed)
    }

    /// `refusal` without its fast path (the tests compare the two).
    static func checked(host: String?, origin: String?, allowed: [String]) -> String? {
        guard let host, let name = hostName(host) else { return "a write needs a Host header naming this server" }
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

    /// The name in a `Host` value, lowercased and without its port (`[::1]:7879` -> `::1`).
    static func hostName(_ host: String) -> String? {
        let value = host.lowercased()
        if value.hasPrefix("[") {
            guard let close = value.firstIndex(of: "]") else { return nil }
            return String(value[value.index(after: value.startIndex)..<close])
        }
        // What comes before the first `:` (the port), without splitting into an array.
        let name = String(value[..<(value.firstIndex(of: ":") ?? value.endIndex)])
        return name.isEmpty ? nil : name
    }

    /// Dotted-quad IPv4, or IPv6 (hex digits and colons, maybe an IPv4 tail).
    static func isIPLiteral(_ name: String) -> Bool {
        let parts = name.split(separator: ".", omittingEmptySubsequences: false)
        if parts.count == 4, parts.allSatisfy({ !$0.isEmpty && $0.count <= 3 && $0.allSatisfy(\.isASCII) && Int($0).map { $0 <= 255 } == true }) {
            return true
        }
        return name.contains(":") && name.allSatisfy { $0.isHexDigit || $0 == ":" || $0 == "." }
    }

    /// Four groups of one to three digits, each at most 255, between three dots.
    private static func isDottedQuad(_ bytes: some Sequence<UInt8>) -> Bool {
        var groups = 0, digits = 0, value = 0
        for b in bytes {
            if b == UInt8(ascii: ".") {
                guard digits > 0 else { return false }
                groups += 1
                digits = 0
                value = 0
            } else if b >= UInt8(ascii: "0") && b <= UInt8(ascii: "9") {
                digits += 1
                value = value * 10 + Int(b - UInt8(ascii: "0"))
                guard digits <= 3, value <= 255 else { return false }
            } else {
                return false
            }
        }
        return groups == 3 && digits > 0
    }

    /// A DNS name as `--allow-host` takes it: letters, digits, `-` and `.`, 1-253 bytes.
    static func isName(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.count <= 253 && text.utf8.allSatisfy {
            ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x41 && $0 <= 0x5A) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x2D || $0 == 0x2E
        }
    }
}

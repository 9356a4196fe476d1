import JuiceCore
import JuiceDomain
import JuicePlatform
import JuiceLog
import JuiceLoop
import JuiceServices
/// Who an HTTP request comes from, for every per-address rule (the AUTH failure limit, a key
/// memory's share) and for the log: the connection's peer, or, when the peer is a trusted proxy
/// (`--trusted-proxy`), the client the proxy names. Worked out once per request, in one place.
package struct RequestClient {
    /// What per-address rules key on: the peer ("10.0.0.7:5678"), or the forwarded client
    /// ("203.0.113.7", "[2001:db8::1]"); `PeerAddress.host` reads either.
    package let address: String
    /// For log lines: the peer, or "203.0.113.7 (via 127.0.0.1:5678)".
    package let description: String

    package init(peer: String) {
        self.init(address: peer, description: peer)
    }

    private init(address: String, description: String) {
        self.address = address
        self.description = description
    }

    /// The client of `request` on a connection from `peer`. Headers naming a client are read
    /// only from a trusted proxy; from anyone else they change nothing.
    package init(_ request: HTTPRequest, peer: String, proxies: TrustedProxies) {
        guard !proxies.isEmpty, let proxy = IPAddress.parse(peer), proxies.trusts(proxy),
              let client = ForwardedFor.client(request, proxy: proxy, proxies: proxies) else {
            self.init(peer: peer)
            return
        }
        self.init(address: IPAddress.key(client), description: "\(IPAddress.text(client)) (via \(peer))")
    }
}

/// Reads the client out of a trusted proxy's `X-Forwarded-For` (or, without one, `Forwarded`,
/// RFC 7239). Each proxy appends the address it was connected from, so the list is read from the
/// right: the first address that is not a trusted proxy is the client, and everything left of it
/// was written by that client, who may have written anything. Nil: the headers name no one.
package enum ForwardedFor {
    package static func client(_ request: HTTPRequest, proxy: [UInt8], proxies: TrustedProxies) -> [UInt8]? {
        // X-Forwarded-For first: it is what Caddy, nginx and HAProxy set, and a proxy that sets
        // it may pass a client's own `Forwarded` through untouched (and the other way round:
        // configure the proxy to set X-Forwarded-For).
        var hops = values(request, "x-forwarded-for").map { Substring($0) }
        // An element without `for=` is a hop that names no one (it stops the walk below).
        if hops.isEmpty { hops = values(request, "forwarded").map { forValue($0) ?? "" } }
        guard !hops.isEmpty else { return nil }
        var nearest = proxy
        for hop in hops.reversed() {
            // A hop a trusted proxy wrote that is no address ("unknown", an obfuscated name):
            // the client is the nearest hop known, never a guess further left.
            guard let address = IPAddress.parse(String(trimmed(hop, also: "\""))) else { return nearest == proxy ? nil : nearest }
            if !proxies.trusts(address) { return address }
            nearest = address
        }
        // Every hop is a trusted proxy: the left-most is as far as anyone can say.
        return nearest
    }

    /// Every comma-separated element of every field called `name`, in order.
    private static func values(_ request: HTTPRequest, _ name: String) -> [String] {
        request.headers.filter { $0.name == name }.flatMap { $0.value.split(separator: ",") }.map(String.init)
    }

    /// Without the spaces and tabs around it (and `also`: the quotes around a `for=` value).
    private static func trimmed(_ text: Substring, also extra: Character = " ") -> Substring {
        let strip: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == extra }
        var text = text
        while let c = text.first, strip(c) { text = text.dropFirst() }
        while let c = text.last, strip(c) { text = text.dropLast() }
        return text
    }

    /// The `for=` parameter of one `Forwarded` element (`for=192.0.2.60;proto=https`,
    /// `for="[2001:db8::1]:4711"`), or nil without one.
    private static func forValue(_ element: String) -> Substring? {
        for pair in element.split(separator: ";") {
            let parts = pair.split(separator: "=", maxSplits: 1)
            guard parts.count == 2, trimmed(parts[0]).lowercased() == "for" else { continue }
            return parts[1]
        }
        return nil
    }
}

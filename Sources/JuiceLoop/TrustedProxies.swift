import JuiceCore
import JuicePlatform
import JuiceLog
/// The reverse proxies whose word on a client's address is taken (`--trusted-proxy`, none by
/// default). Behind a proxy every request comes from the proxy's address, so without this every
/// per-address rule would see one client: one guesser's wrong tokens would lock out the whole
/// shop. Only a peer in these ranges may say who the client is; anyone else who sends
/// `X-Forwarded-For` or `Forwarded` is simply not believed (PROTOCOL.md, Security).
package struct TrustedProxies: Sendable {
    package let ranges: [AddressRange]

    package init(_ ranges: [AddressRange]) { self.ranges = ranges }

    package var isEmpty: Bool { ranges.isEmpty }

    /// Whether `address` (bytes, as `IPAddress.parse` gives) is a trusted proxy.
    package func trusts(_ address: [UInt8]) -> Bool {
        ranges.contains { $0.contains(address) }
    }

    /// Whether the connection's peer ("10.0.0.7:5678", "[::1]:5678") is a trusted proxy.
    package func trusts(peer: String) -> Bool {
        guard !ranges.isEmpty, let address = IPAddress.parse(peer) else { return false }
        return trusts(address)
    }
}

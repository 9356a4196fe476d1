/// The reverse proxies whose word on a client's address is taken (`--trusted-proxy`, none by
/// default). Behind a proxy every request comes from the proxy's address, so without this every
/// per-address rule would see one client: one guesser's wrong tokens would lock out the whole
/// shop. Only a peer in these ranges may say who the client is; anyone else who sends
/// `X-Forwarded-For` or `Forwarded` is simply not believed (PROTOCOL.md, Security).
struct TrustedProxies: Sendable {
    let ranges: [AddressRange]

    init(_ ranges: [AddressRange]) { self.ranges = ranges }

    var isEmpty: Bool { ranges.isEmpty }

    /// Whether `address` (bytes, as `IPAddress.parse` gives) is a trusted proxy.
    func trusts(_ address: [UInt8]) -> Bool {
        ranges.contains { $0.contains(address) }
    }

    /// Whether the connection's peer ("10.0.0.7:5678", "[::1]:5678") is a trusted proxy.
    func trusts(peer: String) -> Bool {
        guard !ranges.isEmpty, let address = IPAddress.parse(peer) else { return false }
        return trusts(address)
    }
}

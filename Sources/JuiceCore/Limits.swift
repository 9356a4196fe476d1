/// The numbers the protocol promises. PROTOCOL.md and `--help` quote these; change them together.
package enum Limits {
    /// No fruit is ever stocked above this (and never below 0).
    package static let maxStock = 1_000_000_000
    /// `ORDER <juice> [count]`: count is 1...maxOrderCount.
    package static let maxOrderCount = 1000
    /// A line is at most this many bytes, not counting its LF or CRLF.
    package static let maxLineBytes = 4096
    /// `key=<token>` of an idempotent ORDER: 1...maxKeyBytes of [A-Za-z0-9._:-].
    package static let maxKeyBytes = 64
    /// How many idempotency keys the server remembers (durably) at most, all clients together
    /// (`KeyMemory`); a new key past it is refused with BUSY, never by forgetting a young one.
    package static let rememberedKeys = 100_000
    /// How many of them one client address may hold (an IPv6 client counts by its /64).
    package static let keysPerAddress = 10_000
    /// The newest keys a paired till's own namespace keeps (`--keys-per-till`): a till retries
    /// only keys among its newest this many (PROTOCOL.md, "Keys"); its clients hold far fewer
    /// waiting orders (the browser till 50, juice-till 1, JuiceClient 256).
    package static let keysPerTill = 1000
    /// A key younger than this is never forgotten (`--key-retention`): 24 hours.
    package static let keyRetentionSeconds: Int64 = 86_400
    /// A price or an amount of money, in the currency's minor unit, is at most this.
    package static let maxAmount = 1_000_000_000_000
    /// How many recent changes `SINCE` can replay line by line; older gaps get a full snapshot event.
    package static let historyEvents = 10_000
}

/// The version the server reports in `EVENT HELLO` and `--version`.
package enum JuiceVersion {
    package static let current = "1.0.0"
}

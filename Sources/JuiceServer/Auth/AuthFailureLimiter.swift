/// Failed manager authentications counted per peer address, across connections: reconnecting
/// must not buy a guesser a fresh allowance. After `maxFailures` wrong tokens from one address
/// within `window`, tokens from that address are refused without being checked until the
/// window (which starts at its first failure) has passed.
///
/// Pure: the caller passes the time (monotonic nanoseconds), so tests move the clock instead of
/// waiting. Knows nothing of connections, so any front end (the line protocol's `AUTH`, a future
/// HTTP `Bearer` check) can share one. Bounded: at most `capacity` addresses are tracked; a new
/// one takes the slot of the one that was tracked earliest (its window is the nearest to ending).
public struct AuthFailureLimiter: Sendable {
    public struct Policy: Sendable {
        public var maxFailures = 10
        public var windowNanoseconds: UInt64 = 60_000_000_000
        public var capacity = 4096

        public init() {}
    }

    public enum Decision: Equatable, Sendable {
        /// Check the token.
        case check
        /// Refuse it unchecked; the address may try again in this many seconds (at least 1).
        case refuse(retryAfterSeconds: Int)
    }

    private struct Entry {
        var slot: Int
        var windowStart: UInt64
        var failures: Int
    }

    public let policy: Policy
    private var entries: [String: Entry] = [:]
    /// Which address owns each slot, in the order they were taken: the next one taken is `next`.
    private var slots: [String?]
    private var next = 0

    public init(policy: Policy = Policy()) {
        precondition(policy.maxFailures >= 1 && policy.capacity >= 1 && policy.windowNanoseconds >= 1)
        self.policy = policy
        slots = Array(repeating: nil, count: policy.capacity)
    }

    /// How many addresses are tracked now (never more than `policy.capacity`).
    public var trackedAddresses: Int { entries.count }

    /// Whether a token from `address` may be checked at `now`.
    public mutating func decide(address: String, now: UInt64) -> Decision {
        guard let entry = current(address, now: now), entry.failures >= policy.maxFailures else { return .check }
        let left = entry.windowStart + policy.windowNanoseconds - now
        return .refuse(retryAfterSeconds: max(1, Int((left + 999_999_999) / 1_000_000_000)))
    }

    /// Counts a wrong token from `address`. Returns the seconds the address is now refused for
    /// when this failure is the one that reaches the limit (log it: once per window), else nil.
    @discardableResult
    public mutating func recordFailure(address: String, now: UInt64) -> Int? {
        var entry = current(address, now: now) ?? take(address, now: now)
        entry.failures += 1
        entries[address] = entry
        guard entry.failures == policy.maxFailures else { return nil }
        guard case .refuse(let seconds) = decide(address: address, now: now) else { return nil }
        return seconds
    }

    /// The address's entry if its window is still open; an expired one is dropped (its slot is
    /// simply left to be reused).
    private mutating func current(_ address: String, now: UInt64) -> Entry? {
        guard let entry = entries[address] else { return nil }
        if now &- entry.windowStart >= policy.windowNanoseconds {
            entries.removeValue(forKey: address)
            return nil
        }
        return entry
    }

    /// A fresh entry in the next slot, evicting the slot's previous owner if it still holds it.
    private mutating func take(_ address: String, now: UInt64) -> Entry {
        if let owner = slots[next], entries[owner]?.slot == next {
            entries.removeValue(forKey: owner)
        }
        slots[next] = address
        let entry = Entry(slot: next, windowStart: now, failures: 0)
        next = (next + 1) % policy.capacity
        return entry
    }
}

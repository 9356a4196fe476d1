import JuiceCore
import JuiceDomain
import JuicePlatform
import JuiceLog
import JuiceLoop
/// Failed manager authentications, counted per client address (`PeerAddress.group`: an IPv4
/// address, an IPv6 /64) across connections, and in all: reconnecting must not buy a guesser a
/// fresh allowance, and neither must a pool of addresses.
///
/// - Per address: after `maxFailures` wrong tokens from one address within `window`, tokens from
///   that address are refused without being checked until the window (which starts at its first
///   failure) has passed.
/// - In all: after `maxGlobalFailures` wrong tokens from all addresses together within `window`
///   (from the first of them), tokens are refused unchecked until that window has passed, except
///   from an address that presented the right token before (`SignedInAddresses`). So the guesses
///   that are checked stay under `maxGlobalFailures` a window however many addresses guess, and
///   the manager's lockout is bounded: none where a manager signed in before, and on a new
///   address at most the rest of one window per window of attack.
///
/// Pure: the caller passes the time (monotonic nanoseconds), so tests move the clock instead of
/// waiting. Knows nothing of connections, so the line protocol's `AUTH` and HTTP's `Bearer`
/// check share one. Bounded: at most `capacity` addresses are tracked; a new one takes the slot
/// of the one that was tracked earliest (its window is the nearest to ending).
public struct AuthFailureLimiter: Sendable {
    public struct Policy: Sendable {
        public var maxFailures = 10
        /// Wrong tokens from all addresses together per window. 100 a minute: ten addresses' worth
        /// of the per-address limit; a shop's few managers never mistype that often, and against
        /// a random token of 16 characters it is nothing.
        public var maxGlobalFailures = 100
        public var windowNanoseconds: UInt64 = 60_000_000_000
        public var capacity = 4096
        /// Addresses remembered as having signed in (`SignedInAddresses`).
        public var signedInCapacity = 256

        public init() {}
    }

    public enum Decision: Equatable, Sendable {
        /// Check the token.
        case check
        /// Refuse it unchecked; the address may try again in this many seconds (at least 1).
        case refuse(retryAfterSeconds: Int)
    }

    /// A block that a failure started (log it: once per window).
    public enum Block: Equatable, Sendable {
        /// This address is refused unchecked for this many seconds.
        case address(seconds: Int)
        /// Every address that has not signed in is refused unchecked for this many seconds.
        case everyone(seconds: Int)
    }

    private struct Entry {
        package var slot: Int
        package var windowStart: UInt64
        package var failures: Int
    }

    public let policy: Policy
    private var entries: [String: Entry] = [:]
    /// Which address owns each slot, in the order they were taken: the next one taken is `next`.
    private var slots: [String?]
    private var next = 0
    /// The window of all addresses' failures (nil: none open) and its count.
    private var globalWindowStart: UInt64?
    private var globalFailures = 0
    private var signedIn: SignedInAddresses

    public init(policy: Policy = Policy()) {
        precondition(policy.maxFailures >= 1 && policy.maxGlobalFailures >= 1 && policy.capacity >= 1
                     && policy.windowNanoseconds >= 1 && policy.signedInCapacity >= 1)
        self.policy = policy
        slots = Array(repeating: nil, count: policy.capacity)
        signedIn = SignedInAddresses(capacity: policy.signedInCapacity)
    }

    /// How many addresses are tracked now (never more than `policy.capacity`).
    public var trackedAddresses: Int { entries.count }

    /// Whether a token from `address` may be checked at `now`.
    public mutating func decide(address: String, now: UInt64) -> Decision {
        if let entry = current(address, now: now), entry.failures >= policy.maxFailures {
            return .refuse(retryAfterSeconds: secondsLeft(of: entry.windowStart, now: now))
        }
        if let start = currentGlobalWindow(now: now), globalFailures >= policy.maxGlobalFailures,
           !signedIn.contains(address) {
            return .refuse(retryAfterSeconds: secondsLeft(of: start, now: now))
        }
        return .check
    }

    /// Counts a wrong token from `address`. Returns the blocks this failure started (the one
    /// that reaches a limit), usually none.
    @discardableResult
    public mutating func recordFailure(address: String, now: UInt64) -> [Block] {
        var blocks: [Block] = []
        var entry = current(address, now: now) ?? take(address, now: now)
        entry.failures += 1
        entries[address] = entry
        if entry.failures == policy.maxFailures {
            blocks.append(.address(seconds: secondsLeft(of: entry.windowStart, now: now)))
        }
        let start = currentGlobalWindow(now: now) ?? now
        globalWindowStart = start
        globalFailures += 1
        if globalFailures == policy.maxGlobalFailures {
            blocks.append(.everyone(seconds: secondsLeft(of: start, now: now)))
        }
        return blocks
    }

    /// The right token came from `address`: a global block no longer applies to it.
    public mutating func recordSuccess(address: String) {
        signedIn.insert(address)
    }

    /// Whole seconds until a window that began at `start` ends (at least 1).
    private func secondsLeft(of start: UInt64, now: UInt64) -> Int {
        let left = start &+ policy.windowNanoseconds &- now
        return max(1, Int((left + 999_999_999) / 1_000_000_000))
    }

    /// The start of the all-addresses window if it is still open; an expired one is closed.
    private mutating func currentGlobalWindow(now: UInt64) -> UInt64? {
        guard let start = globalWindowStart else { return nil }
        if now &- start >= policy.windowNanoseconds {
            globalWindowStart = nil
            globalFailures = 0
            return nil
        }
        return start
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

import JuiceCore
import JuiceDomain
import JuicePlatform
import JuiceLog
import JuiceLoop

/// Checks a manager token, for `AUTH` on the line protocol and `Authorization: Bearer` on HTTP
/// alike: in constant time, and with wrong tokens counted per client address
/// (`PeerAddress.group`: an IPv6 client by its /64) and in all, across connections and protocols
/// (`AuthFailureLimiter`), so reconnecting, switching ports or using many addresses buys a
/// guesser nothing.
package final class ManagerAuth {
    package enum Verdict: Equatable {
        case accepted
        case wrong
        /// Refused unchecked: too many wrong tokens from this address lately.
        case tooManyFailures(retryAfterSeconds: Int)
        /// No token is configured: there is nothing to check against.
        case noTokenConfigured
    }

    package let token: [UInt8]?
    private var limiter: AuthFailureLimiter
    /// Monotonic nanoseconds; tests move it rather than wait a minute.
    private let clock: @Sendable () -> UInt64

    package init(token: [UInt8]?, policy: AuthFailureLimiter.Policy, clock: @escaping @Sendable () -> UInt64) {
        self.token = token
        self.limiter = AuthFailureLimiter(policy: policy)
        self.clock = clock
    }

    package func verify(_ candidate: [UInt8], peer: String) -> Verdict {
        guard let token else { return .noTokenConfigured }
        let address = PeerAddress.group(of: peer)
        let now = clock()
        if case .refuse(let seconds) = limiter.decide(address: address, now: now) {
            return .tooManyFailures(retryAfterSeconds: seconds)
        }
        if constantTimeEqual(candidate, token) {
            limiter.recordSuccess(address: address)
            return .accepted
        }
        let window = limiter.policy.windowNanoseconds / 1_000_000_000
        for block in limiter.recordFailure(address: address, now: now) {
            switch block {
            case .address(let seconds):
                Log.warning("AUTH from \(address): \(limiter.policy.maxFailures) wrong tokens within \(window) s; its AUTH is refused unchecked for \(seconds) s",
                            category: .refusals)
            case .everyone(let seconds):
                // Not rate-limited: at most one a window, and the line an operator must see.
                Log.warning("AUTH: \(limiter.policy.maxGlobalFailures) wrong tokens from all addresses within \(window) s; AUTH from addresses that have not signed in is refused unchecked for \(seconds) s")
            }
        }
        return .wrong
    }

    /// Whether `peer` may try a secret other than the token now (a pairing code): nil, or the
    /// seconds until it may. Wrong codes count as wrong tokens (`wrongGuess`), so a guesser gets
    /// the same 10 tries a minute, and a flood of them from many addresses the same global cap.
    package func mayGuess(peer: String) -> Int? {
        let address = PeerAddress.group(of: peer)
        if case .refuse(let seconds) = limiter.decide(address: address, now: clock()) { return seconds }
        return nil
    }

    /// A wrong pairing code from `peer`.
    package func wrongGuess(peer: String) {
        let address = PeerAddress.group(of: peer)
        for block in limiter.recordFailure(address: address, now: clock()) {
            if case .address(let seconds) = block {
                Log.warning("PAIR from \(address): too many wrong codes; its PAIR and AUTH are refused unchecked for \(seconds) s",
                            category: .refusals)
            }
        }
    }
}

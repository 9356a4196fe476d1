// Reconnect pacing: quick retries for a server that is just restarting, without hammering one
// that is down for longer.

public struct Backoff: Equatable, Sendable {
    public let initial: Double
    public let cap: Double
    private var upcoming: Double

    /// Delays in seconds: `initial`, doubling each retry, never above `cap`.
    public init(initial: Double = 0.1, cap: Double = 3.0) {
        self.initial = initial
        self.cap = cap
        self.upcoming = initial
    }

    /// The delay before the next retry; each call doubles the one after.
    public mutating func nextDelay() -> Double {
        let delay = upcoming
        upcoming = min(cap, upcoming * 2)
        return delay
    }

    /// A session worked: the next failure starts again from `initial`.
    public mutating func reset() {
        upcoming = initial
    }
}

import JuiceCore
import JuicePlatform
import JuiceLog
/// What one client address may add to the lost-sales figures (lost juices, short fruits,
/// orders refused). A refused order costs nothing and needs no token, so without a bound one
/// client could pipeline `ORDER strawberry 1000` a hundred thousand times and leave "100,001,000
/// strawberry juices lost" in the durable figures, which would steer the dashboard's "restock
/// first" advice for good.
///
/// Each address has an allowance of `perMinute` lost juices, refilled evenly over a minute (a
/// token bucket). A refusal that fits is counted and spends it; one that does not is answered
/// exactly the same, but left out of the figures. A cashier turning customers away cannot come
/// near it: 100 juices a minute is more than one till can take orders for.
package struct LostSalesAllowance {
    package static let defaultPerMinute = 100
    /// Addresses tracked at most; past it, the ones whose allowance is whole again are dropped
    /// (they are as new), and a new address beyond that is not counted until there is room.
    package static let maxTracked = 4096

    private struct Bucket {
        package var juices: Double
        package var at: Int64
    }

    package let perMinute: Int
    private var buckets: [String: Bucket] = [:]

    package init(perMinute: Int = LostSalesAllowance.defaultPerMinute) {
        self.perMinute = perMinute
    }

    /// Whether a refusal of `juices` from `owner` would be counted now (asked before the order
    /// runs; `spend` once it is refused). A refusal counts when the allowance holds as much as
    /// it asks, or, for an order bigger than a whole minute's allowance, when the allowance is
    /// whole: one big party turned away counts in full (the allowance then goes into debt and
    /// refills from there), so over any T minutes one address adds at most 100·T + 1,000.
    package mutating func allows(_ juices: Int, from owner: String, now: Int64) -> Bool {
        if let bucket = buckets[owner] { return refilled(bucket, now: now) >= Double(min(juices, perMinute)) }
        if buckets.count >= Self.maxTracked { dropWhole(now: now) }
        return buckets.count < Self.maxTracked
    }

    /// Spends the allowance for a refusal `allows` said fits.
    package mutating func spend(_ juices: Int, from owner: String, now: Int64) {
        let left = buckets[owner].map { refilled($0, now: now) } ?? Double(perMinute)
        buckets[owner] = Bucket(juices: left - Double(juices), at: now)
    }

    private func refilled(_ bucket: Bucket, now: Int64) -> Double {
        let elapsed = Double(max(0, now - bucket.at))
        return min(Double(perMinute), bucket.juices + elapsed * Double(perMinute) / 60)
    }

    private mutating func dropWhole(now: Int64) {
        buckets = buckets.filter { refilled($0.value, now: now) < Double(perMinute) }
    }
}

/// A log-linear latency histogram in the spirit of HdrHistogram.
///
/// Values below 256 get one bucket each (exact). Above that, every power-of-two range
/// [2^k, 2^(k+1)) is split into 128 equal buckets, so a bucket is at most 1/128 of its
/// value wide; reporting the bucket's midpoint keeps the error under 0.4%. The whole
/// UInt64 range fits in 7,424 counters (58 KiB), so recording is one index computation and
/// one increment, and memory stays constant however long the run is.
///
/// A class with manually allocated counters (not a struct with an Array) so that recording
/// in the hot path never triggers copy-on-write checks.
final class LatencyHistogram {
    static let subBucketBits = 7
    static let subBucketCount = 1 << subBucketBits            // 128 buckets per power of two
    static let linearLimit = 1 << (subBucketBits + 1)          // values < 256 are exact
    static let bucketCount = linearLimit + (64 - (subBucketBits + 1)) * subBucketCount

    private let counts: UnsafeMutablePointer<UInt64>
    private(set) var count: UInt64 = 0
    private(set) var min: UInt64 = .max
    private(set) var max: UInt64 = 0
    private(set) var sum: Double = 0

    init() {
        counts = .allocate(capacity: Self.bucketCount)
        counts.initialize(repeating: 0, count: Self.bucketCount)
    }

    deinit { counts.deallocate() }

    @inline(__always)
    static func bucketIndex(of value: UInt64) -> Int {
        if value < UInt64(linearLimit) { return Int(value) }
        let highestBit = 63 - value.leadingZeroBitCount          // >= 8 here
        let shift = highestBit - subBucketBits                    // >= 1
        let sub = Int(truncatingIfNeeded: value >> UInt64(shift)) // in 128..<256
        return linearLimit + (shift - 1) * subBucketCount + (sub - subBucketCount)
    }

    /// The lowest value that falls in `index`, and the bucket's width.
    static func bucketRange(of index: Int) -> (low: UInt64, width: UInt64) {
        if index < linearLimit { return (UInt64(index), 1) }
        let shift = (index - linearLimit) / subBucketCount + 1
        let sub = (index - linearLimit) % subBucketCount + subBucketCount
        return (UInt64(sub) << UInt64(shift), UInt64(1) << UInt64(shift))
    }

    @inline(__always)
    func record(_ value: UInt64) {
        counts[Self.bucketIndex(of: value)] &+= 1
        count &+= 1
        sum += Double(value)
        if value > max { max = value }
        if value < min { min = value }
    }

    /// The value at percentile `p` (0...100): the midpoint of the bucket holding the sample of
    /// rank ceil(p% of count), clamped to the exact min and max seen. 0 when empty.
    func value(atPercentile p: Double) -> UInt64 {
        guard count > 0 else { return 0 }
        if p >= 100 { return max }
        let wanted = Swift.max(1, UInt64((p / 100 * Double(count)).rounded(.up)))
        var seen: UInt64 = 0
        for index in 0..<Self.bucketCount {
            seen &+= counts[index]
            if seen >= wanted {
                let (low, width) = Self.bucketRange(of: index)
                let mid = low &+ width / 2
                return Swift.min(Swift.max(mid, min), max)
            }
        }
        return max
    }

    var mean: Double { count == 0 ? 0 : sum / Double(count) }
}

import Testing
@testable import juice_bench

/// The latency histogram: exact below 256, within 0.4% above, percentiles by rank.
@Suite(.onOwnThreads) struct HistogramTests {
    @Test(arguments: [UInt64(0), 1, 255, 256, 257, 1000, 12_345, 999_999, 123_456_789, 1 << 40, UInt64.max / 3, UInt64.max])
    func everyValueFallsInItsBucketAndTheMidpointIsClose(value: UInt64) {
        let index = LatencyHistogram.bucketIndex(of: value)
        #expect(index >= 0 && index < LatencyHistogram.bucketCount)
        let (low, width) = LatencyHistogram.bucketRange(of: index)
        #expect(value >= low && value - low < width, "\(value) is outside [\(low), \(low) + \(width))")
        let mid = Double(low) + Double(width / 2)
        if value < 256 {
            #expect(width == 1 && mid == Double(value))
        } else {
            #expect(abs(mid - Double(value)) / Double(value) < 0.004)
        }
    }

    @Test func bucketsTileTheRangeWithoutGapsOrOverlaps() {
        var next: UInt64 = 0
        var faults: [String] = []
        for index in 0..<LatencyHistogram.bucketCount {
            let (low, width) = LatencyHistogram.bucketRange(of: index)
            if low != next { faults.append("bucket \(index) starts at \(low), not \(next)") }
            if LatencyHistogram.bucketIndex(of: low) != index || LatencyHistogram.bucketIndex(of: low &+ (width - 1)) != index {
                faults.append("bucket \(index): its ends map elsewhere")
            }
            next = low &+ width
        }
        #expect(faults.isEmpty, "\(faults.prefix(5))")
        #expect(next == 0, "the last bucket ends at \(next), not at UInt64.max + 1")
    }

    @Test func anEmptyHistogramReportsZero() {
        let h = LatencyHistogram()
        #expect(h.count == 0)
        #expect(h.value(atPercentile: 50) == 0)
        #expect(h.value(atPercentile: 100) == 0)
        #expect(h.mean == 0)
    }

    @Test func smallValuesGiveExactPercentilesByRank() {
        let h = LatencyHistogram()
        for v in 1...100 { h.record(UInt64(v)) }
        // The sample of rank ceil(p% of 100): p50 is the 50th value, p99 the 99th.
        #expect(h.value(atPercentile: 50) == 50)
        #expect(h.value(atPercentile: 90) == 90)
        #expect(h.value(atPercentile: 99) == 99)
        #expect(h.value(atPercentile: 99.9) == 100)
        #expect(h.value(atPercentile: 0) == 1)
        #expect(h.value(atPercentile: 100) == 100)
        #expect(h.min == 1 && h.max == 100 && h.count == 100)
        #expect(h.mean == 50.5)
    }

    @Test func largeValuesAreWithinOnePercent() {
        let h = LatencyHistogram()
        for v in 1...100_000 { h.record(UInt64(v) * 1000) }
        for (p, exact) in [(50.0, 50_000_000.0), (90, 90_000_000), (99, 99_000_000), (99.9, 99_900_000)] {
            let got = Double(h.value(atPercentile: p))
            #expect(abs(got - exact) / exact < 0.01, "p\(p) = \(got), want about \(exact)")
        }
        #expect(h.value(atPercentile: 100) == 100_000_000)
    }

    @Test func aPercentileIsClampedToTheValuesSeen() {
        let h = LatencyHistogram()
        h.record(1_000_003)  // its bucket's midpoint is not the value itself
        #expect(h.value(atPercentile: 50) == 1_000_003)
        #expect(h.value(atPercentile: 1) == 1_000_003)
    }

    @Test func aSkewedDistributionPutsTheTailInTheHighPercentiles() {
        let h = LatencyHistogram()
        for _ in 0..<990 { h.record(100) }
        for _ in 0..<10 { h.record(50_000) }
        #expect(h.value(atPercentile: 50) == 100)
        #expect(h.value(atPercentile: 99) == 100)
        let tail = Double(h.value(atPercentile: 99.9))
        #expect(abs(tail - 50_000) / 50_000 < 0.004)
        #expect(h.max == 50_000)
    }
}

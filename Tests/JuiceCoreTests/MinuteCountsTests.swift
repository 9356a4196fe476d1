import Testing
@testable import JuiceCore
import JuiceDomain
import JuiceStorage

@Suite("MinuteCounts", .onOwnThreads)
struct MinuteCountsTests {
    /// 2025-11-23 12:00:00 UTC, a minute boundary.
    static let noon: Int64 = 1_763_899_200

    @Test("61 minutes ending with the current one, oldest first, zeros where nothing happened")
    func window() {
        var m = MinuteCounts()
        m.record(served: true, at: Self.noon + 5)
        m.record(served: true, at: Self.noon + 59)
        m.record(served: false, at: Self.noon + 30)
        m.record(served: true, at: Self.noon + 60)  // the next minute
        m.record(served: false, at: Self.noon + 60 * 10 + 1)
        let w = m.window(at: Self.noon + 60 * 10 + 42)
        #expect(w.count == 61)
        #expect(w.map(\.start) == (0..<61).map { Self.noon + 60 * 10 - 60 * 60 + Int64($0) * 60 })
        #expect(w.last == MinuteCount(start: Self.noon + 600, served: 0, refused: 1))
        #expect(w[50] == MinuteCount(start: Self.noon, served: 2, refused: 1))
        #expect(w[51] == MinuteCount(start: Self.noon + 60, served: 1, refused: 0))
        #expect(w.reduce(0) { $0 + $1.served + $1.refused } == 5)
    }

    @Test("a minute more than an hour old drops out, also when its slot is not reused")
    func hourOld() {
        var m = MinuteCounts()
        m.record(served: true, at: Self.noon)
        #expect(m.window(at: Self.noon + 60 * 60).first == MinuteCount(start: Self.noon, served: 1, refused: 0))
        #expect(m.window(at: Self.noon + 60 * 61).allSatisfy { $0.served == 0 && $0.refused == 0 })
        // 61 minutes later the same slot counts the new minute from zero.
        m.record(served: false, at: Self.noon + 60 * 61)
        #expect(m.window(at: Self.noon + 60 * 61).last == MinuteCount(start: Self.noon + 60 * 61, served: 0, refused: 1))
        // Days later, with the ring idle meanwhile: nothing old shows.
        #expect(m.window(at: Self.noon + 86_400 * 3).allSatisfy { $0.served == 0 && $0.refused == 0 })
    }

    @Test("a clock set back does not overwrite newer minutes")
    func clockSetBack() {
        var m = MinuteCounts()
        m.record(served: true, at: Self.noon + 60 * 61)
        m.record(served: true, at: Self.noon)  // same slot, an hour older: not counted
        #expect(m.window(at: Self.noon + 60 * 61).last?.served == 1)
        // Set back by less: counted in its own minute.
        m.record(served: true, at: Self.noon + 60 * 60)
        #expect(m.window(at: Self.noon + 60 * 61).suffix(2).map(\.served) == [1, 1])
    }
}

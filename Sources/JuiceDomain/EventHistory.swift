import JuiceCore
import JuicePlatform
import JuiceLog

/// The last few thousand changes, so a display that reconnects can catch up (`SINCE <seq>`,
/// or a browser's `Last-Event-ID`) instead of missing changes. A ring of consecutive seqs.
///
/// It keeps each change's values (the fruits it touched, with their new values) in one flat
/// ring of fixed-size slots: keeping each change's own array instead meant a cold buffer freed
/// on every order as the ring went round (S2 profile). Each protocol words them its own way
/// when a client catches up.
package struct EventHistory {
    package let capacity: Int
    /// Values per slot: the most a change touches (the longest recipe; a RESTOCK or SET
    /// touches one). A change that touches more (replayed from an older menu) widens it.
    private var width: Int
    private var values: [FruitValue] = []
    private var counts: [UInt8] = []
    private var head = 0
    private var stored = 0
    /// The seq of the oldest change kept (valid when not empty).
    private var firstSeq: UInt64 = 0

    package init(capacity: Int = Limits.historyEvents, width: Int = 4) {
        self.capacity = capacity
        self.width = max(1, width)
    }

    /// A history as wide as `menu`'s longest recipe.
    package init(for menu: Menu, capacity: Int = Limits.historyEvents) {
        self.init(capacity: capacity, width: menu.juices.map(\.recipe.count).max() ?? 1)
    }

    package mutating func append(seq: UInt64, touched: [FruitValue]) {
        if stored == 0 || firstSeq + UInt64(stored) != seq || touched.count > width {
            // Empty, a gap (a snapshot reload), or a change wider than a slot: the history
            // restarts here.
            width = max(width, touched.count)
            values = []
            counts = []
            head = 0
            stored = 0
            firstSeq = seq
        }
        let slot: Int
        if stored < capacity {
            slot = stored
            if counts.count == slot {
                counts.append(0)
                values.append(contentsOf: repeatElement(FruitValue(fruit: 0, value: 0), count: width))
            }
            stored += 1
        } else {
            slot = head
            head += 1
            if head == capacity { head = 0 }
            firstSeq += 1
        }
        counts[slot] = UInt8(touched.count)
        for (i, value) in touched.enumerated() { values[slot * width + i] = value }
    }

    /// Whether every change with seq in (after, current] is kept, so a catch-up can replay them
    /// one by one. False when the history does not reach back that far, or `after` is ahead
    /// of `current` (another store).
    package func reaches(after: UInt64, current: UInt64) -> Bool {
        if after == current { return true }
        return after < current && stored > 0 && after + 1 >= firstSeq && firstSeq + UInt64(stored) - 1 == current
    }

    /// The fruits one change touched, or nil if it is not (or no longer) kept.
    package func touched(seq: UInt64) -> [FruitValue]? {
        guard holds(seq) else { return nil }
        let slot = (head + Int(seq - firstSeq)) % stored
        return Array(values[(slot * width)..<(slot * width + Int(counts[slot]))])
    }

    /// The changes with seq `from` through `through`, in order; nil if `from` is not (or no
    /// longer) kept.
    package func touched(from: UInt64, through: UInt64) -> [[FruitValue]]? {
        guard holds(from) else { return nil }
        var out: [[FruitValue]] = []
        var seq = from
        while seq <= through, let values = touched(seq: seq) {
            out.append(values)
            seq += 1
        }
        return out
    }

    private func holds(_ seq: UInt64) -> Bool {
        stored > 0 && seq >= firstSeq && seq - firstSeq < UInt64(stored)
    }
}

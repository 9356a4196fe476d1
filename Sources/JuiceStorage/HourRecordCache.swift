import JuiceCore
import JuiceDomain
import Synchronization

/// A snapshot's hour records (`Y`), framed, kept from one encode to the next. A 400-day store's
/// 9,600 hours are nearly all of its snapshot's bytes, and a compaction and every `GET /backup`
/// encode the whole snapshot in one turn of the loop; but only the current hour's counters
/// change between two encodes. An hour is reused only if its slot and every counter are equal
/// to what was framed (compared, not assumed: a clock set back may count into an old hour).
///
/// Used from the loop only; the Mutex (never contended) lets the compiler check that, and lets
/// an encoder closure that holds one be `Sendable`.
package final class HourRecordCache: Sendable {
    private struct Entry {
        let slot: BusinessCalendar.Slot
        let counters: SalesHistory.Counters
        let bytes: Range<Int>
    }

    private struct Kept {
        var names: [String] = []
        var entries: [Entry] = []
        var bytes: [UInt8] = []
    }

    private let kept = Mutex(Kept())

    package init() {}

    /// Appends `hours` (in time order) framed to `out`, as `Snapshot.encode` frames them.
    package func append(_ hours: [(slot: BusinessCalendar.Slot, counters: SalesHistory.Counters)], menu: Menu,
                        to out: inout [UInt8]) {
        let juiceNames = menu.juices.map(\.name), fruitNames = menu.fruits.map(\.name)
        kept.withLock { old in
            if old.names != juiceNames + fruitNames { old = Kept(names: juiceNames + fruitNames) }
            var new = Kept(names: old.names)
            new.entries.reserveCapacity(hours.count)
            new.bytes.reserveCapacity(old.bytes.count + 4096)
            var scratch: [UInt8] = []
            var j = 0
            for (slot, counters) in hours {
                // Both lists are in time order: skip the hours that were dropped since (old days).
                while j < old.entries.count && old.entries[j].slot.start < slot.start { j += 1 }
                let start = new.bytes.count
                if j < old.entries.count, old.entries[j].slot == slot, old.entries[j].counters == counters {
                    new.bytes.append(contentsOf: old.bytes[old.entries[j].bytes])
                } else {
                    Snapshot.hourRecord(slot, counters, juiceNames: juiceNames, fruitNames: fruitNames)
                        .appendFramed(to: &new.bytes, scratch: &scratch)
                }
                new.entries.append(Entry(slot: slot, counters: counters, bytes: start..<new.bytes.count))
            }
            out.append(contentsOf: new.bytes)
            old = new
        }
    }
}

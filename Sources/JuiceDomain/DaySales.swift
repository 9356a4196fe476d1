import JuiceCore

/// The sales of the current business day, by seq: what a VOID may name (PROTOCOL.md, "VOID").
/// A void needs the sale's juice, count and amount (to give them back), who made it and when
/// (a till voids only its own, within its window), its key (whose remembered answer then says
/// "voided"), and whether it was voided already. Kept in the snapshot (`3 G` records), so a
/// compaction or a restart never makes a sale of today unvoidable.
///
/// Bounded: only today's sales (a new business day starts an empty table), and at most
/// `maxKept` of them; past that each new sale takes the oldest one's place, and voiding that one
/// is `NO_SUCH_SALE` (a juice stand sells a few hundred a day; a flood of orders cannot grow this
/// without end). A sale is at most 128 bytes inline (DaySalesTests checks its stride), so the
/// table stays under 2.6 MB, plus any key or address text too long to be stored inline in its
/// String.
package struct DaySales: Sendable {
    package struct Sale: Sendable, Equatable {
        package let seq: UInt64
        package let juice: Int
        package let count: Int
        package let amount: Int?
        package let by: Writer
        package let time: Int64
        package let key: String?
        /// The seq of the void that undid it.
        package var voidedBy: UInt64?

        package init(seq: UInt64, juice: Int, count: Int, amount: Int?, by: Writer, time: Int64, key: String?, voidedBy: UInt64? = nil) {
            self.seq = seq
            self.juice = juice
            self.count = count
            self.amount = amount
            self.by = by
            self.time = time
            self.key = key
            self.voidedBy = voidedBy
        }
    }

    package static let maxKept = 20_000

    /// The business day the table holds (nil: empty).
    package private(set) var day: Int32?
    /// The day's sales in seq order (a store's seqs only grow), found by binary search: an
    /// append per sale, no hashing, on the order path. A ring once full: `oldest` is where the
    /// order starts, and the next sale overwrites it (no sale is moved; cutting the front of an
    /// array moved the whole table, 400 instructions a sale in S2's profile).
    private var ring: [Sale] = []
    private var oldest = 0

    package init() {}

    package var count: Int { ring.count }

    /// A sale made on business `day`: a later day than the table's starts it afresh.
    package mutating func add(_ sale: Sale, day: Int32) {
        if self.day != day {
            // A clock set back a day leaves today's table as it is: its sales stay voidable.
            if let kept = self.day, day < kept { return }
            self = DaySales()
            self.day = day
        }
        // Seqs only grow; one that does not (never written so) is not kept rather than misfiled.
        if !ring.isEmpty, sale.seq <= ring[oldest == 0 ? ring.count - 1 : oldest - 1].seq { return }
        if ring.count < Self.maxKept {
            ring.append(sale)
        } else {
            ring[oldest] = sale
            oldest = oldest + 1 == ring.count ? 0 : oldest + 1
        }
    }

    /// Sale `seq`, if it was made on business day `today`.
    package func sale(_ seq: UInt64, today: Int32) -> Sale? {
        guard day == today, let i = all.index(of: seq) else { return nil }
        return all[i]
    }

    /// Marks sale `seq` voided by the void at `by`.
    package mutating func markVoided(_ seq: UInt64, by: UInt64) {
        // The slot is found first: a view of the ring still alive during the write would make
        // the write copy the whole table.
        guard let slot = all.index(of: seq).map({ all.slot($0) }) else { return }
        ring[slot].voidedBy = by
    }

    /// Every sale kept, oldest first (for the snapshot and the manager's list).
    package var all: Kept { Kept(ring: ring, oldest: oldest) }

    /// The ring read in seq order, without copying it.
    package struct Kept: RandomAccessCollection, Sendable {
        fileprivate let ring: [Sale]
        fileprivate let oldest: Int

        package var startIndex: Int { 0 }
        package var endIndex: Int { ring.count }
        package subscript(position: Int) -> Sale { ring[slot(position)] }

        fileprivate func slot(_ position: Int) -> Int {
            let i = oldest + position
            return i < ring.count ? i : i - ring.count
        }

        fileprivate func index(of seq: UInt64) -> Int? {
            var low = 0, high = count
            while low < high {
                let mid = (low + high) / 2
                if self[mid].seq < seq { low = mid + 1 } else { high = mid }
            }
            return low < count && self[low].seq == seq ? low : nil
        }
    }
}

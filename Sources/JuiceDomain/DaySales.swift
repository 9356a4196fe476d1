import JuiceCore

/// The sales of the current business day, by seq: what a VOID may name (PROTOCOL.md, "VOID").
/// A void needs the sale's juice, count and amount (to give them back), who made it and when
/// (a till voids only its own, within its window), its key (whose remembered answer then says
/// "voided"), and whether it was voided already. Kept in the snapshot (`3 G` records), so a
/// compaction or a restart never makes a sale of today unvoidable.
///
/// Bounded: only today's sales (a new business day starts an empty table), and at most
/// `maxKept` of them; past that the oldest go first, and voiding one is `NO_SUCH_SALE` (a
/// juice stand sells a few hundred a day; a flood of orders cannot grow this without end). A sale
/// is at most 128 bytes inline (DaySalesTests checks its stride), so the table stays under
/// 3.2 MB (1.25 times the bound: see `dropped`), plus any key or address text too long to
/// be stored inline in its String.
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
    /// append per sale, no hashing, on the order path. The first `dropped` are gone (past
    /// `maxKept`); they are cut off in one go once they are a quarter of the bound, so the array
    /// holds at most 1.25 times it.
    private var sales: [Sale] = []
    private var dropped = 0

    package init() {}

    package var count: Int { sales.count - dropped }

    /// A sale made on business `day`: a later day than the table's starts it afresh.
    package mutating func add(_ sale: Sale, day: Int32) {
        if self.day != day {
            // A clock set back a day leaves today's table as it is: its sales stay voidable.
            if let kept = self.day, day < kept { return }
            self = DaySales()
            self.day = day
        }
        // Seqs only grow; one that does not (never written so) is not kept rather than misfiled.
        if let last = sales.last, sale.seq <= last.seq { return }
        sales.append(sale)
        if count > Self.maxKept {
            dropped += 1
            if dropped >= Self.maxKept / 4 {
                sales.removeFirst(dropped)
                dropped = 0
            }
        }
    }

    /// Sale `seq`, if it was made on business day `today`.
    package func sale(_ seq: UInt64, today: Int32) -> Sale? {
        guard day == today, let i = index(of: seq) else { return nil }
        return sales[i]
    }

    /// Marks sale `seq` voided by the void at `by`.
    package mutating func markVoided(_ seq: UInt64, by: UInt64) {
        if let i = index(of: seq) { sales[i].voidedBy = by }
    }

    /// Every sale kept, oldest first (for the snapshot and the manager's list).
    package var all: ArraySlice<Sale> { sales[dropped...] }

    private func index(of seq: UInt64) -> Int? {
        var low = dropped, high = sales.count
        while low < high {
            let mid = (low + high) / 2
            if sales[mid].seq < seq { low = mid + 1 } else { high = mid }
        }
        return low < sales.count && sales[low].seq == seq ? low : nil
    }
}

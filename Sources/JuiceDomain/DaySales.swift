import JuiceCore

/// The sales of the current business day, by seq: what a VOID may name (PROTOCOL.md, "VOID").
/// A void needs the sale's juice, count and amount (to give them back), who made it and when
/// (a till voids only its own, within its window), its key (whose remembered answer then says
/// "voided"), and whether it was voided already. Kept in the snapshot (`3 G` records), so a
/// compaction or a restart never makes a sale of today unvoidable.
///
/// Bounded: only today's sales (a new business day starts an empty table), and at most
/// `maxKept` of them; past that the oldest go first, and voiding one is `NO_SUCH_SALE` (a
/// juice stand sells a few hundred a day; a flood of orders cannot grow this without end: about
/// 200 bytes a sale, 4 MB at the bound, measured by SlowConsumerTests' memory ceiling).
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
    private var bySeq: [UInt64: Sale] = [:]
    /// Seqs in the order they came (ascending), for dropping the oldest past `maxKept`.
    private var seqs: [UInt64] = []
    private var oldest = 0

    package init() {}

    package var count: Int { bySeq.count }

    /// A sale made on business `day`: a later day than the table's starts it afresh.
    package mutating func add(_ sale: Sale, day: Int32) {
        if self.day != day {
            // A clock set back a day leaves today's table as it is: its sales stay voidable.
            if let kept = self.day, day < kept { return }
            self = DaySales()
            self.day = day
        }
        bySeq[sale.seq] = sale
        seqs.append(sale.seq)
        if bySeq.count > Self.maxKept {
            bySeq.removeValue(forKey: seqs[oldest])
            oldest += 1
            // Compact the seq list once half of it is dropped ones, so it stays within twice the bound.
            if oldest >= Self.maxKept {
                seqs.removeFirst(oldest)
                oldest = 0
            }
        }
    }

    /// Sale `seq`, if it was made on business day `today`.
    package func sale(_ seq: UInt64, today: Int32) -> Sale? {
        guard day == today else { return nil }
        return bySeq[seq]
    }

    /// Marks sale `seq` voided by the void at `by`.
    package mutating func markVoided(_ seq: UInt64, by: UInt64) {
        bySeq[seq]?.voidedBy = by
    }

    /// Every sale kept, oldest first (for the snapshot).
    package var all: [Sale] {
        seqs[oldest...].compactMap { bySeq[$0] }
    }
}

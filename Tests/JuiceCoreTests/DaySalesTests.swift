import JuiceCore
import JuiceDomain
import Testing

/// Today's sales, which a VOID may name: bounded, one business day at a time.
@Suite("Day sales", .onOwnThreads)
struct DaySalesTests {
    static func sale(_ seq: UInt64) -> DaySales.Sale {
        DaySales.Sale(seq: seq, juice: 0, count: 1, amount: 6_000, by: .till(1), time: 1_000, key: nil)
    }

    @Test func theOldestGoPastTheBoundAndANewDayStartsAfresh() {
        var sales = DaySales()
        for seq in 1...UInt64(DaySales.maxKept + 10) { sales.add(Self.sale(seq), day: 7) }
        #expect(sales.count == DaySales.maxKept)
        #expect(sales.sale(10, today: 7) == nil && sales.sale(11, today: 7) != nil)
        #expect(sales.sale(UInt64(DaySales.maxKept + 10), today: 8) == nil, "only today's")
        #expect(sales.all.first?.seq == 11 && sales.all.count == DaySales.maxKept)
        // A clock set back a day keeps today's table; the next day starts an empty one.
        sales.add(Self.sale(90_000), day: 6)
        #expect(sales.day == 7 && sales.sale(90_000, today: 6) == nil)
        sales.add(Self.sale(90_001), day: 8)
        #expect(sales.count == 1 && sales.sale(90_001, today: 8)?.voidedBy == nil)
        sales.markVoided(90_001, by: 90_002)
        #expect(sales.sale(90_001, today: 8)?.voidedBy == 90_002)
        // Seqs only grow: one that does not is not kept over another.
        sales.add(Self.sale(90_001), day: 8)
        #expect(sales.count == 1 && sales.sale(90_001, today: 8)?.voidedBy == 90_002)
    }

    /// The bound on the table's memory (DaySales' comment) rests on this.
    @Test func aSaleIsAtMost128BytesInline() {
        #expect(MemoryLayout<DaySales.Sale>.stride <= 128, "\(MemoryLayout<DaySales.Sale>.stride)")
    }

    @Test func everySaleIsFoundAmongManyAndTheOldestDroppedInOrder() {
        var sales = DaySales()
        for seq in stride(from: UInt64(2), through: 60_000, by: 2) { sales.add(Self.sale(seq), day: 7) }
        #expect(sales.count == DaySales.maxKept && sales.all.first?.seq == 60_002 - 2 * UInt64(DaySales.maxKept))
        #expect(sales.sale(60_000, today: 7) != nil && sales.sale(59_999, today: 7) == nil && sales.sale(2, today: 7) == nil)
        #expect(zip(sales.all, sales.all.dropFirst()).allSatisfy { $0.seq < $1.seq })
        // Past the bound the table is a ring: a sale on either side of its seam is voided in place.
        for seq in [UInt64(60_000), 60_002 - 2 * UInt64(DaySales.maxKept), 40_000] { sales.markVoided(seq, by: seq + 1) }
        #expect(sales.all.filter { $0.voidedBy != nil }.map(\.seq) == [60_002 - 2 * UInt64(DaySales.maxKept), 40_000, 60_000])
        sales.add(Self.sale(60_002), day: 7)
        #expect(sales.all.first?.seq == 60_004 - 2 * UInt64(DaySales.maxKept) && sales.all.last?.seq == 60_002)
        #expect(sales.sale(60_000, today: 7)?.voidedBy == 60_001 && sales.count == DaySales.maxKept)
    }
}

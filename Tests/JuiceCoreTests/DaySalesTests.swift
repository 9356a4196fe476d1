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
    }
}

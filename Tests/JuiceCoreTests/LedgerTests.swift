import Testing
@testable import JuiceCore
import JuiceDomain
import JuiceStorage

@Suite("StockLedger", .onOwnThreads)
struct LedgerTests {
    @Test("a new ledger")
    func fresh() {
        let l = StockLedger(menu: .standard)
        #expect(l.stock == [10, 10, 10, 10, 10])
        #expect(l.seq == 0)
        #expect(l.ordersServed == 0)
        #expect(l.ordersRefused == 0)
        #expect(l.sold == [0, 0, 0, 0, 0, 0, 0])
        #expect(l.keys.count == 0)
        #expect(StockLedger(menu: .standard, initialStock: 0).stock == [0, 0, 0, 0, 0])
    }

    @Test("the menu's initial stock wins over the default")
    func menuInitialStock() throws {
        let menu = try Menu(fruits: Menu.standard.fruits, juices: Menu.standard.juices, initialStock: [1, nil, 0, nil, 1_000_000_000], currency: Menu.standard.currency)
        #expect(StockLedger(menu: menu, initialStock: 7).stock == [1, 7, 0, 7, 1_000_000_000])
    }

    @Test("an order takes every fruit of its recipe")
    func orderApplied() {
        var l = StockLedger(menu: .standard)
        let outcome = l.order(request(J.mangoKiwi, 2))
        #expect(outcome == .applied(Change(seq: 1, kind: .order(request(J.mangoKiwi, 2)),
                                           touched: [FruitValue(fruit: F.mango, value: 6), FruitValue(fruit: F.kiwi, value: 8)], amount: 11_000)))
        #expect(l.stock == [10, 10, 10, 8, 6])
        #expect(l.seq == 1)
        #expect(l.ordersServed == 1)
        #expect(l.sold[J.mangoKiwi] == 2)
    }

    @Test("the count multiplies every amount")
    func countMultiplies() {
        var l = StockLedger(menu: .standard)
        l.restock(fruit: F.strawberry, amount: 100).ignore()
        let change = l.order(request(J.strawberryBanana, 5)).change
        #expect(change?.touched == [FruitValue(fruit: F.strawberry, value: 60), FruitValue(fruit: F.banana, value: 5)])
        #expect(l.stock[F.strawberry] == 60)
        #expect(l.stock[F.banana] == 5)
    }

    @Test("an order may take the last fruit")
    func exactStock() {
        var l = StockLedger(menu: .standard, initialStock: 16)
        #expect(l.order(request(J.strawberry)).change != nil)
        #expect(l.stock[F.strawberry] == 0)
        #expect(l.order(request(J.strawberry)).refusal?.error.message == "needs strawberry=16 has strawberry=0")
    }

    @Test("a two-fruit order short of its second fruit takes nothing")
    func atomicSecondFruitShort() {
        var l = StockLedger(menu: .standard)
        _ = l.set(fruit: F.banana, amount: 0)
        let before = LedgerState(l)
        let outcome = l.order(request(J.strawberryBanana))
        let refusal = outcome.refusal
        #expect(refusal?.error.code == .outOfStock)
        #expect(refusal?.error.message == "needs banana=1 has banana=0")
        #expect(refusal?.have == [10, 0], "have lists every recipe fruit, in recipe order")
        #expect(l.stock == before.stock, "the strawberries were not taken")
        #expect(l.seq == before.seq)
        #expect(l.ordersRefused == 1)
        #expect(l.ordersServed == 0)
        #expect(l.sold == before.sold)
    }

    @Test("a two-fruit order short of its first fruit takes nothing")
    func atomicFirstFruitShort() {
        var l = StockLedger(menu: .standard)
        _ = l.set(fruit: F.mango, amount: 1)
        let refusal = l.order(request(J.mangoKiwi)).refusal
        #expect(refusal?.error.message == "needs mango=2 has mango=1")
        #expect(refusal?.have == [1, 10])
        #expect(l.stock == [10, 10, 10, 10, 1])
    }

    @Test("OUT_OF_STOCK names only the short fruits, with the count applied")
    func outOfStockText() {
        var l = StockLedger(menu: .standard)
        let e = l.order(request(J.strawberryBanana, 2)).refusal?.error
        #expect(e == ProtocolError(.outOfStock, "needs strawberry=20 has strawberry=10"))
        #expect(e?.line == "ERR OUT_OF_STOCK needs strawberry=20 has strawberry=10")
        _ = l.set(fruit: F.banana, amount: 1)
        #expect(l.order(request(J.strawberryBanana, 2)).refusal?.error.message
                == "needs strawberry=20 banana=2 has strawberry=10 banana=1")
        #expect(l.order(request(J.mangoKiwi, 1000)).refusal?.error.message == "needs mango=2000 kiwi=1000 has mango=10 kiwi=10")
        #expect(l.ordersRefused == 3)
        #expect(l.seq == 1)
    }

    @Test("seq counts applied changes only")
    func seqOnlyOnChanges() {
        var l = StockLedger(menu: .standard)
        #expect(l.order(request(J.mango)).change?.seq == 1)
        #expect(l.order(request(J.strawberry, 2)).refusal != nil)
        #expect(l.seq == 1)
        #expect((try? l.restock(fruit: F.kiwi, amount: 5).get())?.seq == 2)
        #expect((try? l.restock(fruit: F.kiwi, amount: 1_000_000_000).get()) == nil)
        #expect(l.seq == 2)
        #expect(l.set(fruit: F.kiwi, amount: 3).seq == 3)
        #expect(l.order(request(J.mango, key: "a")).change?.seq == 4)
        #expect(l.order(request(J.mango, key: "a")).duplicateReply != nil)
        #expect(l.order(request(J.mango, 2, key: "a")).keyReusedError != nil)
        #expect(l.seq == 4)
    }

    @Test("restock up to the ceiling and not past it")
    func restockLimit() throws {
        var l = StockLedger(menu: .standard)
        let change = try l.restock(fruit: F.kiwi, amount: 5).get()
        #expect(change == Change(seq: 1, kind: .restock(fruit: F.kiwi, amount: 5), touched: [FruitValue(fruit: F.kiwi, value: 15)]))
        #expect(l.stock[F.kiwi] == 15)

        var m = StockLedger(menu: .standard)
        let over = m.restock(fruit: F.kiwi, amount: 999_999_991)
        #expect(over == nil)
        #expect(m.restock(fruit: F.kiwi, amount: 999_999_991, key: nil, by: nil, at: 0).refusalLine == "ERR OVER_LIMIT kiwi=10 plus 999999991 would pass the limit of 1000000000")
        #expect(m.stock[F.kiwi] == 10)
        #expect(m.seq == 0)
        let exact = try m.restock(fruit: F.kiwi, amount: 999_999_990).get()
        #expect(exact.touched == [FruitValue(fruit: F.kiwi, value: 1_000_000_000)])
        #expect(m.restock(fruit: F.kiwi, amount: 1, key: nil, by: nil, at: 0).refusalLine
                == "ERR OVER_LIMIT kiwi=1000000000 plus 1 would pass the limit of 1000000000")
        #expect(m.stock[F.kiwi] == 1_000_000_000)
        #expect(m.seq == 1)

        var z = StockLedger(menu: .standard, initialStock: 0)
        #expect((try? z.restock(fruit: F.mango, amount: 1_000_000_000).get()) != nil)
        #expect(z.stock[F.mango] == 1_000_000_000)
    }

    @Test("set writes an absolute value")
    func set() {
        var l = StockLedger(menu: .standard)
        #expect(l.set(fruit: F.kiwi, amount: 0) == Change(seq: 1, kind: .set(fruit: F.kiwi, amount: 0), touched: [FruitValue(fruit: F.kiwi, value: 0)]))
        #expect(l.set(fruit: F.kiwi, amount: 1_000_000_000).touched == [FruitValue(fruit: F.kiwi, value: 1_000_000_000)])
        #expect(l.stock == [10, 10, 10, 1_000_000_000, 10])
        #expect(l.seq == 2)
        #expect(l.ordersServed == 0, "SET is not an order")
    }

    @Test("stats count orders, refusals and juices sold")
    func stats() {
        var l = StockLedger(menu: .standard, initialStock: 100)
        _ = l.order(request(J.mango, 3))
        _ = l.order(request(J.mango, 2))
        _ = l.order(request(J.banana))
        _ = l.order(request(J.strawberry, 10))  // refused: 160 > 100
        _ = l.order(request(J.mangoKiwi, 1000))  // refused
        #expect(l.ordersServed == 3)
        #expect(l.ordersRefused == 2)
        #expect(l.sold == [0, 1, 0, 0, 0, 5, 0], "sold counts juices, not orders")
    }

    @Test("a refusal is a lost sale of its juices, and one order short for each fruit below what it needed")
    func lostSales() {
        var l = StockLedger(menu: .standard)
        #expect(l.lost == [0, 0, 0, 0, 0, 0, 0] && l.short == [0, 0, 0, 0, 0])
        // 20 strawberries needed, 10 there; 2 bananas needed, 10 there: only strawberry is short.
        #expect(l.order(request(J.strawberryBanana, 2)).refusal != nil)
        #expect(l.lost[J.strawberryBanana] == 2, "lost counts juices, not orders")
        #expect(l.short == [1, 0, 0, 0, 0])
        // Both short: each counts one order, whatever the count.
        _ = l.set(fruit: F.banana, amount: 1)
        #expect(l.order(request(J.strawberryBanana, 2)).refusal != nil)
        #expect(l.order(request(J.mangoKiwi, 1000)).refusal != nil)
        #expect(l.lost == [0, 0, 0, 0, 4, 0, 1000])
        #expect(l.short == [2, 1, 0, 1, 1])
        // Exactly enough is not short: strawberry 10 of 10 needed, banana 0 of 1.
        _ = l.set(fruit: F.banana, amount: 0)
        #expect(l.order(request(J.strawberryBanana)).refusal != nil)
        #expect(l.short == [2, 2, 0, 1, 1])
        #expect(l.lost[J.strawberryBanana] == 5)
        // A served order counts nothing here.
        #expect(l.order(request(J.mango)).change != nil)
        #expect(l.lost == [0, 0, 0, 0, 5, 0, 1000] && l.short == [2, 2, 0, 1, 1])
        #expect(l.ordersRefused == 4)
    }

    @Test("a keyed retry of a refused order (dup) and a reused key count no lost sale")
    func lostSalesOnce() throws {
        var l = StockLedger(menu: .standard)
        _ = l.set(fruit: F.banana, amount: 0)
        #expect(l.order(request(J.banana, 3, key: "till-1")).refusal != nil)
        #expect(l.lost[J.banana] == 3 && l.short[F.banana] == 1)
        let state = LedgerState(l)
        #expect(l.order(request(J.banana, 3, key: "till-1")).duplicateReply != nil)
        #expect(l.order(request(J.banana, 2, key: "till-1")).keyReusedError != nil)
        #expect(l.order(request(J.mango, 3, key: "till-1")).keyReusedError != nil)
        #expect(LedgerState(l) == state)
        // Still a dup after a restock that would now let it through.
        _ = try l.restock(fruit: F.banana, amount: 100).get()
        #expect(l.order(request(J.banana, 3, key: "till-1")).duplicateReply != nil)
        #expect(l.lost[J.banana] == 3 && l.short[F.banana] == 1 && l.ordersRefused == 1)
    }

    @Test("a retried keyed order gets its original reply and changes nothing")
    func duplicateKey() {
        var l = StockLedger(menu: .standard)
        let first = l.order(request(J.mangoKiwi, 2, key: "k-1"))
        #expect(first.change != nil)
        _ = l.order(request(J.mango))  // something else happens in between
        let state = LedgerState(l)
        let again = l.order(request(J.mangoKiwi, 2, key: "k-1"))
        #expect(again.duplicateReply == bytes("OK ORDER mango-kiwi 2 seq=1 mango=6 kiwi=8 amount=11000"))
        #expect(LedgerState(l) == state)
    }

    @Test("a key reused for another juice or count is KEY_REUSED")
    func keyReused() {
        var l = StockLedger(menu: .standard)
        _ = l.order(request(J.mango, 1, key: "abc"))
        let state = LedgerState(l)
        let otherJuice = l.order(request(J.kiwi, 1, key: "abc")).keyReusedError
        #expect(otherJuice == ProtocolError(.keyReused, "key 'abc' was used for ORDER mango 1"))
        let otherCount = l.order(request(J.mango, 2, key: "abc")).keyReusedError
        #expect(otherCount?.code == .keyReused)
        #expect(LedgerState(l) == state)
        // Keys are case-sensitive: another spelling is another key.
        #expect(l.order(request(J.kiwi, 1, key: "ABC")).change != nil)
    }

    @Test("an alias names the same juice for a key")
    func aliasKey() throws {
        var l = StockLedger(menu: .standard)
        guard case .command(.order(let canonical)) = parse("ORDER mango-kiwi 2 key=K"),
              case .command(.order(let alias)) = parse("order 망키쥬스 2 key=K") else {
            Issue.record("the lines should parse")
            return
        }
        #expect(l.order(canonical).change != nil)
        #expect(l.order(alias).duplicateReply == bytes("OK ORDER mango-kiwi 2 seq=1 mango=6 kiwi=8 amount=11000"))
        #expect(l.stock[F.mango] == 6)
    }

    @Test("a refused keyed order repeats its ERR, even after a restock")
    func refusedKeyRepeats() throws {
        var l = StockLedger(menu: .standard)
        _ = l.set(fruit: F.banana, amount: 0)
        let first = l.order(request(J.banana, key: "r"))
        #expect(first.refusal?.error.line == "ERR OUT_OF_STOCK needs banana=2 has banana=0")
        _ = try l.restock(fruit: F.banana, amount: 10).get()
        let again = l.order(request(J.banana, key: "r"))
        #expect(again.duplicateReply == bytes("ERR OUT_OF_STOCK needs banana=2 has banana=0"))
        #expect(l.stock[F.banana] == 10)
        #expect(l.ordersRefused == 1)
        #expect(l.order(request(J.banana, 2, key: "r")).keyReusedError?.message == "key 'r' was used for ORDER banana 1")
    }

    @Test("restore puts recorded values back")
    func restore() throws {
        var l = StockLedger(menu: .standard)
        l.restore(seq: 42, ordersServed: 7, ordersRefused: 3)
        l.restore(fruit: F.kiwi, value: 99)
        l.restore(juice: J.mango, sold: 12)
        l.restore(juice: J.kiwi, lost: 5)
        l.restore(fruit: F.kiwi, short: 2)
        let first = RecordedReply.outcome("OK ORDER mango 1 seq=1 mango=7", request: .order(juice: J.mango, count: 1), key: "k", menu: .standard)
        l.restoreKey("k", KeyMemory.Entry(first: try #require(first), at: 0))
        #expect(l.seq == 42)
        #expect(l.ordersServed == 7)
        #expect(l.ordersRefused == 3)
        #expect(l.stock == [10, 10, 10, 99, 10])
        #expect(l.sold[J.mango] == 12)
        #expect(l.lost == [0, 0, 5, 0, 0, 0, 0] && l.short == [0, 0, 0, 2, 0])
        #expect(l.order(request(J.mango, key: "k")).duplicateReply == bytes("OK ORDER mango 1 seq=1 mango=7"))
        #expect(l.order(request(J.kiwi)).change?.seq == 43)
    }
}

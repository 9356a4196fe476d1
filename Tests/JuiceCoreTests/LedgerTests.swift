import Testing
@testable import JuiceCore
import JuiceDomain
import JuiceStorage

func request(_ juice: Int, _ count: Int = 1, key: String? = nil) -> OrderRequest {
    OrderRequest(juice: juice, count: count, key: key)
}

/// The tests read outcomes in the line protocol's words (`Wire`), for the standard menu.
extension WriteOutcome {
    /// A refusal's `ERR` line.
    var refusalLine: String? { Wire.refusal(self, menu: .standard)?.line }
    var refusal: (error: ProtocolError, have: [Int])? {
        if case .outOfStock(_, let have) = self { return (Wire.refusal(self, menu: .standard)!, have) }
        return nil
    }
    var duplicateReply: [UInt8]? {
        if case .duplicate(let first) = self { return Wire.replyLine(to: first, menu: .standard) }
        return nil
    }
    var keyReusedError: ProtocolError? {
        if case .keyReused = self { return Wire.refusal(self, menu: .standard) }
        return nil
    }
}

extension Optional where Wrapped == Change {
    struct Refused: Error {}
    /// A RESTOCK's change, or a thrown error if it was refused (over the ceiling).
    func get() throws -> Change {
        guard let self else { throw Refused() }
        return self
    }
    func ignore() {}
}

/// Everything observable about a ledger, to compare two of them.
struct LedgerState: Equatable, CustomStringConvertible {
    let stock: [Int]
    let seq: UInt64
    let served: UInt64
    let refused: UInt64
    let sold: [UInt64]
    let lost: [UInt64]
    let short: [UInt64]
    let keys: [String]
    let entries: [KeyMemory.Entry]

    init(_ l: StockLedger) {
        stock = l.stock
        seq = l.seq
        served = l.ordersServed
        refused = l.ordersRefused
        sold = l.sold
        lost = l.lost
        short = l.short
        keys = l.keys.inOrder.map(\.key)
        entries = l.keys.inOrder.map(\.entry)
    }

    var description: String { "stock=\(stock) seq=\(seq) served=\(served) refused=\(refused) sold=\(sold) lost=\(lost) short=\(short) keys=\(keys)" }
}

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
        let menu = try Menu(fruits: Menu.standard.fruits, juices: Menu.standard.juices, initialStock: [1, nil, 0, nil, 1_000_000_000])
        #expect(StockLedger(menu: menu, initialStock: 7).stock == [1, 7, 0, 7, 1_000_000_000])
    }

    @Test("an order takes every fruit of its recipe")
    func orderApplied() {
        var l = StockLedger(menu: .standard)
        let outcome = l.order(request(J.mangoKiwi, 2))
        #expect(outcome == .applied(Change(seq: 1, kind: .order(request(J.mangoKiwi, 2)),
                                           touched: [FruitValue(fruit: F.mango, value: 6), FruitValue(fruit: F.kiwi, value: 8)])))
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
        #expect(again.duplicateReply == bytes("OK ORDER mango-kiwi 2 seq=1 mango=6 kiwi=8"))
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
        #expect(l.order(alias).duplicateReply == bytes("OK ORDER mango-kiwi 2 seq=1 mango=6 kiwi=8"))
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

@Suite("KeyMemory", .onOwnThreads)
struct KeyMemoryTests {
    static func entry(_ n: Int, at time: Int64 = 1000) -> KeyMemory.Entry {
        KeyMemory.Entry(first: .applied(Change(seq: UInt64(n), kind: .order(OrderRequest(juice: n % 7, count: n + 1)), touched: [])), at: time)
    }

    static func policy(retention: Int64 = 100, capacity: Int = 10, share: Int = 3) -> KeyMemory.Policy {
        KeyMemory.Policy(retentionSeconds: retention, capacity: capacity, sharePerAddress: share)
    }

    @Test("a young key is never forgotten: a full share is refused, not made room in")
    func youngKeysStay() {
        var m = KeyMemory(policy: Self.policy())
        for n in 0..<3 {
            #expect(m.admit(owner: "10.0.0.9", now: 1000 + Int64(n)) == nil)
            m.remember("k\(n)", Self.entry(n, at: 1000 + Int64(n)), owner: "10.0.0.9")
        }
        // The flooder's share is full: its next key is refused, with the time its oldest key
        // has left, and every key it holds is still there.
        #expect(m.admit(owner: "10.0.0.9", now: 1050) == .addressFull(retryAfterSeconds: 50))
        #expect((0..<3).allSatisfy { m["k\($0)"] != nil })
        // Another address is not touched by it.
        #expect(m.admit(owner: "10.0.0.7", now: 1050) == nil)
        #expect(m.held(by: "10.0.0.9") == 3 && m.held(by: "10.0.0.7") == 0)
    }

    @Test("the whole memory full of young keys refuses every new key")
    func wholeMemoryFull() {
        var m = KeyMemory(policy: Self.policy(capacity: 4, share: 3))
        for n in 0..<4 {
            let owner = n < 2 ? "a" : "b"
            #expect(m.admit(owner: owner, now: 1000) == nil)
            m.remember("k\(n)", Self.entry(n), owner: owner)
        }
        #expect(m.admit(owner: "c", now: 1010) == .full(retryAfterSeconds: 90))
        #expect(m.count == 4)
    }

    @Test("keys age out oldest first, and then make room")
    func ageOut() {
        var m = KeyMemory(policy: Self.policy(share: 2))
        m.remember("a", Self.entry(0, at: 1000), owner: "x")
        m.remember("b", Self.entry(1, at: 1040), owner: "x")
        #expect(m.admit(owner: "x", now: 1099) == .addressFull(retryAfterSeconds: 1))
        #expect(m.admit(owner: "x", now: 1100) == nil, "a is 100 s old: forgotten")
        #expect(m["a"] == nil && m["b"] != nil)
        #expect(m.held(by: "x") == 1)
        m.forgetExpired(now: 1140)
        #expect(m.count == 0 && m.held(by: "x") == 0)
    }

    @Test("a clock set back never makes a key be forgotten early")
    func clockBack() {
        var m = KeyMemory(policy: Self.policy())
        m.remember("late", Self.entry(0, at: 2000), owner: "x")
        m.remember("early", Self.entry(1, at: 1000), owner: "x")
        m.forgetExpired(now: 1150)
        #expect(m["late"] != nil && m["early"] != nil, "the one in front is young: both stay")
        m.forgetExpired(now: 2100)
        #expect(m.count == 0)
    }

    @Test("a key stamped ahead of now holds the queue one window at most, then the keys behind it age out")
    func keyFromTheFuture() {
        var m = KeyMemory(policy: Self.policy())
        m.remember("future", Self.entry(0, at: 1_000_000), owner: "x")
        m.remember("old", Self.entry(1, at: 1000), owner: "x")
        m.forgetExpired(now: 1200)
        #expect(m["future"] != nil && m["old"] != nil, "the front is aged from now: kept, and so is the one behind it")
        m.forgetExpired(now: 1300)
        #expect(m.count == 0, "one window after it reached the front, both are gone")
    }

    @Test("recovered keys count against the whole memory, not against any address")
    func recoveredKeys() {
        var m = KeyMemory(policy: Self.policy(capacity: 3, share: 2))
        m.remember("r1", Self.entry(0))
        m.remember("r2", Self.entry(1))
        #expect(m.admit(owner: "x", now: 1000) == nil)
        m.remember("x1", Self.entry(2), owner: "x")
        #expect(m.admit(owner: "y", now: 1000) == .full(retryAfterSeconds: 100))
        #expect(m.inOrder.map(\.key) == ["r1", "r2", "x1"])
    }

    /// A replayed journal holds a key used again after it aged out: the later use is aged from
    /// its own time. It used to keep the first use's place, so the first use's expiry forgot it.
    @Test("remembering a known key again (a use after it aged out) ages it from the later use")
    func rememberAgain() {
        var m = KeyMemory(policy: Self.policy())
        m.remember("a", Self.entry(0, at: 0))
        m.remember("b", Self.entry(1, at: 1))
        m.remember("a", Self.entry(2, at: 50))
        #expect(m.count == 2)
        #expect(m["a"] == Self.entry(2, at: 50))
        #expect(m.inOrder.map(\.key) == ["b", "a"])
        m.forgetExpired(now: 101)
        #expect(m["a"] == Self.entry(2, at: 50) && m["b"] == nil, "the place a's first use left forgets nothing")
        #expect(m.inOrder.map(\.key) == ["a"])
        m.forgetExpired(now: 150)
        #expect(m.count == 0)
    }

    @Test("the default policy is the protocol's")
    func defaultPolicy() {
        #expect(KeyMemory().policy == KeyMemory.Policy(retentionSeconds: 86_400, capacity: Limits.rememberedKeys,
                                                        sharePerAddress: Limits.keysPerAddress))
        #expect(StockLedger(menu: .standard).keys.policy == KeyMemory().policy)
    }
}

@Suite("Replay", .onOwnThreads)
struct ReplayTests {
    enum Fact {
        case change(Change)
        case refusal(OrderRequest, have: [Int])
    }

    @Test("replaying recorded facts rebuilds the live state", arguments: [UInt64(1), 2, 3, 42, 0xDEAD_BEEF, 0x5EED])
    func replayMatchesLive(seed: UInt64) {
        var rng = SeededRNG(seed: seed)
        let menu = Menu.standard
        var live = StockLedger(menu: menu)
        var journal: [Fact] = []
        let keyPool = (0..<40).map { "key-\($0)" }
        var applied = 0, refused = 0, duplicates = 0, reused = 0, overLimit = 0
        for _ in 0..<1500 {
            switch rng.next() % 10 {
            case 0...5:
                let juice = Int(rng.next() % UInt64(menu.juices.count))
                let count = rng.next() % 20 == 0 ? 1 + Int(rng.next() % 1000) : 1 + Int(rng.next() % 3)
                let key = rng.next() % 2 == 0 ? keyPool[Int(rng.next() % UInt64(keyPool.count))] : nil
                let req = OrderRequest(juice: juice, count: count, key: key)
                switch live.order(req) {
                case .applied(let change):
                    journal.append(.change(change)); applied += 1
                case .outOfStock(_, let have):
                    journal.append(.refusal(req, have: have)); refused += 1
                case .duplicate: duplicates += 1
                case .keyReused: reused += 1
                case .unavailable, .overLimit, .tillRevoked: Issue.record("40 keys never fill the key memory; an order is never over the limit, nor a revoked till's")
                }
            case 6, 7:
                let fruit = Int(rng.next() % UInt64(menu.fruits.count))
                let amount = rng.next() % 50 == 0 ? Limits.maxStock : 1 + Int(rng.next() % 30)
                if let change = live.restock(fruit: fruit, amount: amount) { journal.append(.change(change)) } else { overLimit += 1 }
            default:
                let fruit = Int(rng.next() % UInt64(menu.fruits.count))
                let amount = rng.next() % 50 == 0 ? Limits.maxStock : Int(rng.next() % 40)
                journal.append(.change(live.set(fruit: fruit, amount: amount)))
            }
        }
        // The run exercised every path, or the comparison below would prove little.
        #expect(applied > 50 && refused > 50 && duplicates > 10 && reused > 10 && overLimit > 0)

        var replayed = StockLedger(menu: menu)
        for fact in journal {
            switch fact {
            case .change(let c): replayed.replay(c)
            case .refusal(let r, let have): replayed.replayRefusal(r, have: have)
            }
        }
        #expect(LedgerState(replayed) == LedgerState(live))
        // And both answer the next keyed retries the same way.
        for key in keyPool {
            for juice in 0..<menu.juices.count {
                var a = live, b = replayed
                let req = OrderRequest(juice: juice, count: 1, key: key)
                #expect(a.order(req) == b.order(req))
            }
        }
    }

    @Test("replaying a keyed refusal rebuilds its exact ERR line")
    func replayRefusalLine() {
        var live = StockLedger(menu: .standard)
        _ = live.set(fruit: F.banana, amount: 1)
        let req = OrderRequest(juice: J.strawberryBanana, count: 2, key: "x")
        guard let (error, have) = live.order(req).refusal else {
            Issue.record("should be refused")
            return
        }
        #expect(error.message == "needs strawberry=20 banana=2 has strawberry=10 banana=1")
        var replayed = StockLedger(menu: .standard)
        replayed.replayRefusal(req, have: have)
        #expect(replayed.keys["x"].map { Wire.replyLine(to: $0.first, menu: .standard) } == bytes(error.line))
        #expect(replayed.keys["x"] == live.keys["x"])
        #expect(replayed.ordersRefused == 1)
        // An unkeyed refusal only counts.
        replayed.replayRefusal(OrderRequest(juice: J.mango, count: 1000), have: [10])
        #expect(replayed.ordersRefused == 2)
        #expect(replayed.keys.count == 1)
        #expect(replayed.lost == live.lost.enumerated().map { $0.offset == J.mango ? $0.element + 1000 : $0.element })
        #expect(replayed.short[F.mango] == 1 && replayed.short[F.strawberry] == 1 && replayed.short[F.banana] == 1)
    }

    @Test("on replay, a recipe fruit the refusal did not record (Int.max) is not short")
    func replayRefusalUnknownFruit() {
        var replayed = StockLedger(menu: .standard)
        replayed.replayRefusal(OrderRequest(juice: J.strawberryBanana, count: 1000, key: "k"), have: [Int.max, 0])
        #expect(replayed.short == [0, 1, 0, 0, 0])
        #expect(replayed.lost[J.strawberryBanana] == 1000)
        #expect(replayed.keys["k"].map { Wire.replyLine(to: $0.first, menu: .standard) } == bytes("ERR OUT_OF_STOCK needs banana=1000 has banana=0"))
    }
}

extension Result {
    func ignore() {}
}

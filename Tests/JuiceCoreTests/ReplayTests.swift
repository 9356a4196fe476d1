import Testing
@testable import JuiceCore
import JuiceDomain
import JuiceStorage

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
                case .unavailable, .overLimit, .tillRevoked, .voidRefused: Issue.record("40 keys never fill the key memory; an order is never over the limit, nor a revoked till's")
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

import Testing
@testable import juice_bench

/// The chaos checker's voids and money verdicts on crafted observations: a clean run with a
/// void and prices passes, and each broken promise (a void applied twice, a refused void, a
/// void of another till's sale, a re-sent void key answered afresh, a voided sale's key that
/// does not say so, takings that do not add up) fails the check about it.
@Suite(.onOwnThreads) struct ChaosVoidCheckTests {
    /// Two sales (seq 2 and 3) and a void of the second (seq 4), priced in KRW.
    static func clean() -> Observations {
        var before = ChaosCheckTests.afterSetup
        before.voided = ["banana": 0, "mango-kiwi": 0]
        (before.takings, before.voidedAmount) = (0, 0)
        var after = StoreFigures(seq: 4, ordersServed: 2, ordersRefused: 0, sold: ["banana": 1, "mango-kiwi": 2],
                                 stock: ["banana": 98, "mango": 100, "kiwi": 100])
        (after.voids, after.voided, after.takings, after.voidedAmount) = (1, ["banana": 0, "mango-kiwi": 2], 4000, 11000)
        let orders = [
            AcknowledgedOrder(key: "k1", write: OrderWrite(juice: "banana", count: 1), via: .tcp, answer: .made(seq: 2, stock: ["banana": 98], amount: 4000), dup: false, n: 1),
            AcknowledgedOrder(key: "k2", write: OrderWrite(juice: "mango-kiwi", count: 2), via: .http, answer: .made(seq: 3, stock: ["mango": 96, "kiwi": 98], amount: 11000),
                         dup: false, n: 2),
        ]
        let void = AcknowledgedVoid(key: "k3", write: VoidWrite(sale: 3, reason: "other"), via: .http,
                                    answer: .voided(seq: 4, sale: 3, stock: ["mango": 100, "kiwi": 100], amount: 11000), dup: true, till: 0, n: 3)
        var o = Observations(recipes: ChaosCheckTests.recipes, before: before, after: after, afterResend: after)
        o.acknowledged = orders
        o.voids = [void]
        o.prices = ["banana": 4000, "mango-kiwi": 5500]
        o.display = [
            DisplayEvent(seq: 2, stock: ["banana": 98], fullState: false),
            DisplayEvent(seq: 3, stock: ["mango": 96, "kiwi": 98], fullState: false),
            DisplayEvent(seq: 4, stock: ["mango": 100, "kiwi": 100], fullState: false),
        ]
        o.display.insert(DisplayEvent(seq: 1, stock: ["pineapple": 0], fullState: false), at: 0)
        o.resent = [Resent(key: "k1", via: .tcp, first: orders[0].answer, reply: .definite(orders[0].answer, dup: true)),
                    Resent(key: "k2", via: .tcp, first: orders[1].answer, reply: .definite(orders[1].answer, dup: true, voided: 4))]
        o.resentVoids = [ResentVoid(key: "k3", first: void.answer, reply: .definite(void.answer, dup: true))]
        return o
    }

    func failing(_ o: Observations) -> [String] {
        ChaosCheck.run(o).filter { !$0.ok }.map(\.name)
    }

    @Test func aCleanRunWithAVoidPasses() {
        let checks = ChaosCheck.run(Self.clean())
        #expect(ChaosCheck.passed(checks), "\(checks.filter { !$0.ok })")
        #expect(ChaosCheck.voidsAppliedOnce(Self.clean()).detail.hasPrefix("1 voided (mango-kiwi 2)"))
        #expect(ChaosCheck.moneyAddsUp(Self.clean()).detail == "takings 15000 - voided 11000 = 4000, as REPORT says")
    }

    /// A void applied twice gives its fruit back twice: the stock, the seq, REPORT's voids and
    /// the takings all show it.
    @Test func aVoidAppliedTwiceFails() {
        var o = Self.clean()
        o.after.seq = 5
        o.after.stock = ["banana": 98, "mango": 104, "kiwi": 102]
        (o.after.voids, o.after.voided["mango-kiwi"], o.after.takings, o.after.voidedAmount) = (2, 4, -7000, 22000)
        o.afterResend = o.after
        o.display.append(DisplayEvent(seq: 5, stock: ["mango": 104, "kiwi": 102], fullState: false))
        #expect(failing(o) == ["every acknowledged order applied exactly once", "every acknowledged void applied exactly once", "the money adds up"])
        #expect(ChaosCheck.voidsAppliedOnce(o).detail.contains("REPORT voids grew by 2, 1 acknowledged"))
        #expect(ChaosCheck.moneyAddsUp(o).detail.contains("REPORT takings grew by -7000, the tills were told 15000 taken less 11000 voided = 4000"))
    }

    /// A refused void (its sale lost in a crash), a void of another till's sale, a re-sent void
    /// key answered afresh, and a voided sale's key that does not name its void each fail.
    @Test func refusedForeignAndFreshVoidsFail() {
        var refused = Self.clean()
        refused.voids[0].answer = .refused(code: "NO_SUCH_SALE", message: "no sale of today's business day has seq=3")
        #expect(ChaosCheck.voidsAppliedOnce(refused).detail.contains("k3 (VOID 3) was refused: NO_SUCH_SALE"))
        var foreign = Self.clean()
        foreign.voids[0].till = 1
        #expect(ChaosCheck.voidsAppliedOnce(foreign).detail.contains("k3 of till 1 voided till 0's sale 3"))
        var fresh = Self.clean()
        fresh.resentVoids[0].reply = .definite(.voided(seq: 5, sale: 3, stock: ["mango": 104, "kiwi": 102], amount: 11000), dup: false)
        #expect(failing(fresh) == ["every acknowledged void applied exactly once"])
        var silent = Self.clean()
        silent.resent[1].reply = .definite(silent.acknowledged[1].answer, dup: true)
        #expect(ChaosCheck.voidsAppliedOnce(silent).detail.contains("k2 (sale 3) re-sent over tcp says voided=none, expected 4"))
    }

    /// A sale charged at another price, and a menu without prices whose answers carry money.
    @Test func amountsMustFollowThePrices() {
        var o = Self.clean()
        o.acknowledged[0].answer = .made(seq: 2, stock: ["banana": 98], amount: 4500)
        o.resent[0] = Resent(key: "k1", via: .tcp, first: o.acknowledged[0].answer, reply: .definite(o.acknowledged[0].answer, dup: true))
        #expect(ChaosCheck.moneyAddsUp(o).detail.contains("k1 (banana 1) amount=4500, price says 4000"))
        var unpriced = Self.clean()
        unpriced.prices = [:]
        #expect(!ChaosCheck.moneyAddsUp(unpriced).ok)
    }

    /// Voids share a till's keys with its orders: the resend takes each till's newest
    /// `Limits.keysPerTill` writes, orders and voids together, by write number.
    @Test func theResendTakesEachTillsNewestOrdersAndVoids() {
        let orders = (0..<1200).map { i in
            AcknowledgedOrder(key: "o\(i)", write: OrderWrite(juice: "banana", count: 1), via: .tcp, answer: .made(seq: i + 2, stock: [:]), dup: false, n: 2 * i)
        }
        let voids = (0..<300).map { i in
            AcknowledgedVoid(key: "v\(i)", write: VoidWrite(sale: i + 2, reason: "other"), via: .tcp, answer: .voided(seq: 9000 + i, sale: i + 2, stock: [:], amount: nil),
                             dup: false, till: 0, n: 2 * i + 1)
        }
        let kept = Resender.retriable(orders, voids: voids)
        #expect(kept.orders.count + kept.voids.count == 1000)
        #expect(kept.orders.count == 950 && kept.orders.first?.key == "o250", "\(kept.orders.first?.key ?? "none")")
        #expect(kept.voids.count == 50 && kept.voids.first?.key == "v250", "\(kept.voids.first?.key ?? "none")")
        let few = Resender.retriable(Array(orders.prefix(10)), voids: Array(voids.prefix(5)))
        #expect(few.orders.count == 10 && few.voids.count == 5)
    }
}

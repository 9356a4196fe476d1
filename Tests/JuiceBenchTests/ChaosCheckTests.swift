import Testing
@testable import juice_bench

/// The chaos run's checker on crafted observations: a clean run passes, and each kind of broken
/// promise (a seq seen twice, a gap, a key applied twice, a lost acknowledged order, a re-sent
/// key answered afresh) fails the check that is about it. So the verdict cannot be a stub.
@Suite(.onOwnThreads) struct ChaosCheckTests {
    static let recipes: [String: [(fruit: String, amount: Int)]] = ["banana": [("banana", 2)], "mango-kiwi": [("mango", 2), ("kiwi", 1)]]

    /// The store after the setup change at seq 1: nothing sold yet, 100 of each fruit.
    static var afterSetup: StoreFigures {
        StoreFigures(seq: 1, ordersServed: 0, ordersRefused: 0, sold: ["banana": 0, "mango-kiwi": 0],
                     stock: ["banana": 100, "mango": 100, "kiwi": 100])
    }

    /// Three orders answered after a setup change at seq 1: two made (seq 2 and 3), one refused.
    static func clean() -> Observations {
        let before = afterSetup
        let after = StoreFigures(seq: 3, ordersServed: 2, ordersRefused: 1, sold: ["banana": 1, "mango-kiwi": 2],
                                 stock: ["banana": 98, "mango": 96, "kiwi": 98])
        let orders = [
            AcknowledgedOrder(key: "k1", write: OrderWrite(juice: "banana", count: 1), via: .tcp, answer: .made(seq: 2, stock: ["banana": 98]), dup: false),
            AcknowledgedOrder(key: "k2", write: OrderWrite(juice: "mango-kiwi", count: 2), via: .http, answer: .made(seq: 3, stock: ["mango": 96, "kiwi": 98]), dup: true),
            AcknowledgedOrder(key: "k3", write: OrderWrite(juice: "banana", count: 1000), via: .tcp,
                         answer: .refused(code: "OUT_OF_STOCK", message: "needs banana=2000 has banana=98"), dup: false),
        ]
        var o = Observations(recipes: recipes, before: before, after: after, afterResend: after)
        o.acknowledged = orders
        o.display = [
            DisplayEvent(seq: 1, stock: ["pineapple": 0], fullState: false),
            DisplayEvent(seq: 2, stock: ["banana": 98], fullState: false),
            DisplayEvent(seq: 3, stock: ["mango": 96, "kiwi": 98], fullState: false),
        ]
        o.resent = orders.map { Resent(key: $0.key, via: .tcp, first: $0.answer, reply: .definite($0.answer, dup: true)) }
        return o
    }

    func failing(_ o: Observations) -> [String] {
        ChaosCheck.run(o).filter { !$0.ok }.map(\.name)
    }

    @Test func aCleanRunPassesEveryCheck() {
        let checks = ChaosCheck.run(Self.clean())
        #expect(checks.count == 9 && ChaosCheck.passed(checks), "\(checks)")
    }

    /// The anonymous flood (the server has a manager token) may only be refused: FORBIDDEN, or
    /// BUSY when the anonymous namespace is full. An order of it that reached the store fails.
    @Test func anAnonymousFloodThatReachedTheStoreFails() {
        var o = Self.clean()
        o.anonymousFloodAnswers = ["FORBIDDEN": 900, "BUSY": 100]
        #expect(failing(o).isEmpty)
        o.anonymousFloodAnswers["OUT_OF_STOCK"] = 1
        #expect(failing(o) == ["the anonymous flood was refused"])
    }

    /// A till re-sends only its newest `Limits.keysPerTill` keys (the contract that lets the
    /// server keep only those): the resend takes each till's newest, in order, and no other.
    @Test func onlyEachTillsNewestKeysAreResent() {
        let orders = (0..<2500).map { i in
            AcknowledgedOrder(key: "t\(i % 2)-\(i)", write: OrderWrite(juice: "banana", count: 1), via: .tcp, answer: .made(seq: i + 2, stock: [:]), dup: false, till: i % 2, n: i)
        }
        let kept = Resender.retriable(orders)
        #expect(kept.count == 2000)
        #expect(kept.first?.key == "t0-500" && kept.last?.key == "t1-2499", "\(kept.first!.key)")
        #expect(kept.filter { $0.till == 0 }.count == 1000)
    }

    @Test func aSeqSeenTwiceFailsTheDisplayCheck() {
        var o = Self.clean()
        o.display.insert(DisplayEvent(seq: 2, stock: ["banana": 98], fullState: false), at: 2)
        #expect(failing(o) == ["display saw every seq once, in order"])
        #expect(ChaosCheck.displayInOrder(o).detail.contains("seq 2 after seq 2: seen twice"))
    }

    @Test func aGapOrAnEarlyEndFailsTheDisplayCheck() {
        var gap = Self.clean()
        gap.display.remove(at: 1)
        #expect(failing(gap) == ["display saw every seq once, in order"])
        #expect(ChaosCheck.displayInOrder(gap).detail.contains("seq 3 after seq 1: 1 missing"))
        var short = Self.clean()
        short.display.removeLast()
        #expect(ChaosCheck.displayInOrder(short).detail.contains("the display ended at seq 2, the store at 3"))
    }

    /// A full state that skips ahead is SINCE's documented resync: reported, not a failure. One
    /// that goes back means the store lost changes.
    @Test func aResyncMaySkipAheadButNeverBack() {
        var resync = Self.clean()
        resync.display[2] = DisplayEvent(seq: 3, stock: ["banana": 98, "mango": 96, "kiwi": 98, "pineapple": 0], fullState: true)
        resync.display.remove(at: 1)
        let check = ChaosCheck.displayInOrder(resync)
        #expect(check.ok && check.detail.contains("1 resyncs (full state) skipping 1 seqs"), "\(check)")
        var back = Self.clean()
        back.display.append(DisplayEvent(seq: 1, stock: ["banana": 100, "mango": 100, "kiwi": 100, "pineapple": 0], fullState: true))
        #expect(ChaosCheck.displayInOrder(back).detail.contains("a full state at seq 1 after seq 3: the store went back"))
    }

    /// The flood: a key forgotten, its retry applied a second time. The store moved by
    /// one order more than was acknowledged, and the re-send got a fresh answer.
    @Test func aKeyAppliedTwiceFails() {
        var o = Self.clean()
        o.after = StoreFigures(seq: 4, ordersServed: 3, ordersRefused: 1, sold: ["banana": 2, "mango-kiwi": 2],
                               stock: ["banana": 96, "mango": 96, "kiwi": 98])
        o.afterResend = o.after
        o.display.append(DisplayEvent(seq: 4, stock: ["banana": 96], fullState: false))
        o.resent[0].reply = .definite(.made(seq: 4, stock: ["banana": 96]), dup: false)
        #expect(failing(o) == ["every acknowledged order applied exactly once", "a re-sent key gets its first answer"])
        #expect(ChaosCheck.appliedOnce(o).detail.contains("sold_banana=2 expected 1"))
        #expect(ChaosCheck.resentGetFirstAnswer(o).detail.hasPrefix("1 of 3 re-sent keys were applied again"))
    }

    /// A crash lost an acknowledged order (seq 3), and the next order was given its seq: the
    /// store is short of it, two keys own one seq, and the display's seq 3 is another stock.
    @Test func aLostAcknowledgedOrderFails() {
        var o = Self.clean()
        o.acknowledged.append(AcknowledgedOrder(key: "k4", write: OrderWrite(juice: "banana", count: 1), via: .tcp, answer: .made(seq: 3, stock: ["banana": 96]), dup: false))
        o.after = StoreFigures(seq: 3, ordersServed: 2, ordersRefused: 1, sold: ["banana": 2, "mango-kiwi": 0],
                               stock: ["banana": 96, "mango": 100, "kiwi": 100])
        o.afterResend = o.after
        o.display[2] = DisplayEvent(seq: 3, stock: ["banana": 96], fullState: false)
        o.resent[1].reply = .definite(.made(seq: 4, stock: ["mango": 96, "kiwi": 99]), dup: false)
        let failed = failing(o)
        #expect(failed.contains("no acknowledged change lost") && failed.contains("every acknowledged order applied exactly once"))
        let lost = ChaosCheck.nothingLost(o).detail
        #expect(lost.contains("seq 3 acknowledged to both k2 and k4") && lost.contains("k2 at seq 3 left mango=96, the display saw mango=none"), "\(lost)")
    }

    @Test func aRefusalMustRepeatAndBeCountedOnce() {
        var o = Self.clean()
        o.resent[2].reply = .definite(.refused(code: "OUT_OF_STOCK", message: "needs banana=2000 has banana=98"), dup: false)
        #expect(failing(o) == ["a re-sent key gets its first answer"])
        var counted = Self.clean()
        counted.after.ordersRefused = 2
        counted.afterResend = counted.after
        #expect(failing(counted) == ["every acknowledged order applied exactly once"])
        counted.otherRefusals = true   // a flood's refusals count too
        #expect(failing(counted).isEmpty)
    }

    @Test func unansweredOrdersAndUnplannedExitsFail() {
        var o = Self.clean()
        o.unanswered = ["k9"]
        o.unplannedExits = ["the server ended by itself (exit status 3)"]
        #expect(failing(o) == ["every order got a definite answer", "the server ended only when killed"])
    }
}

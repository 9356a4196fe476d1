import Testing
@testable import JuiceCore
import JuiceDomain
import JuiceStorage

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

    /// A key in front of the queue stamped later than the one behind it: the queue is aged from
    /// its front, so neither goes while the front is young, and both go once it is not.
    struct LateFront: CustomTestStringConvertible, Sendable {
        let testDescription: String
        let front: Int64, behind: Int64
        /// A time at which both are kept, and one at which both are gone.
        let kept: Int64, gone: Int64
        let why: Comment
    }

    @Test("a key stamped later than the one behind it", arguments: [
        LateFront(testDescription: "a clock set back never makes a key be forgotten early",
                  front: 2000, behind: 1000, kept: 1150, gone: 2100, why: "the one in front is young: both stay"),
        LateFront(testDescription: "a key stamped ahead of now holds the queue one window at most, then the keys behind it age out",
                  front: 1_000_000, behind: 1000, kept: 1200, gone: 1300,
                  why: "the front is aged from now: kept, and so is the one behind it; one window after it reached the front, both are gone"),
    ])
    func lateFront(_ c: LateFront) {
        var m = KeyMemory(policy: Self.policy())
        m.remember("front", Self.entry(0, at: c.front), owner: "x")
        m.remember("behind", Self.entry(1, at: c.behind), owner: "x")
        m.forgetExpired(now: c.kept)
        #expect(m["front"] != nil && m["behind"] != nil, c.why)
        m.forgetExpired(now: c.gone)
        #expect(m.count == 0, c.why)
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

import JuiceCore
import JuiceTestSupport
import Testing
import JuiceDomain
import JuiceStorage

/// Keys belong to their till (issue 31): each paired till's namespace is its own and bounded by
/// itself; anonymous writers share one, refused rather than forgotten; neither touches the other.
@Suite("Key scopes", .onOwnThreads)
struct KeyScopeTests {
    let menu = Menu.standard
    func order(_ key: String, juice: Int = 1, count: Int = 1) -> OrderRequest { OrderRequest(juice: juice, count: count, key: key) }

    @Test("the same key from two tills is two keys, and a stranger's is a third")
    func sameKeyTwoTills() {
        var ledger = StockLedger(menu: menu)
        let till3 = Writer.till(3).keyScope, till4 = Writer.till(4).keyScope
        #expect(ledger.order(order("k1"), in: till3, at: 100).change != nil)
        #expect(ledger.order(order("k1"), in: till4, at: 100).change != nil, "till 4's k1 is not till 3's")
        #expect(ledger.order(order("k1"), in: .shared(address: "10.0.0.9"), at: 100).change != nil, "a stranger cannot replay till 3's key")
        // A retry in its own scope is a duplicate; asking something else is KEY_REUSED, only to the till itself.
        guard case .duplicate = ledger.order(order("k1"), in: till3, at: 101) else { Issue.record("no dup"); return }
        guard case .keyReused = ledger.order(order("k1", count: 2), in: till3, at: 101) else { Issue.record("no reuse"); return }
        #expect(ledger.seq == 3)
    }

    @Test("a till flooding its own keys pushes out only its own oldest")
    func tillFloodsItsOwn() {
        let policy = KeyMemory.Policy(capacity: 50, sharePerAddress: 10, perTill: 20)
        var ledger = StockLedger(menu: menu, initialStock: 1_000_000, keyPolicy: policy)
        let flooder = Writer.till(1).keyScope, quiet = Writer.till(2).keyScope
        _ = ledger.restock(fruit: 1, amount: 1, key: "q1", in: quiet, at: 1)
        _ = ledger.restock(fruit: 1, amount: 1, key: "a1", in: .shared(address: "10.0.0.1"), at: 1)
        for i in 0..<500 {
            let outcome = ledger.restock(fruit: 1, amount: 1, key: "f\(i)", in: flooder, at: 2)
            #expect(outcome.change != nil, "a till's new key is never refused")
        }
        #expect(ledger.keys.held(in: flooder) == 20)
        #expect(ledger.keys["f499", in: flooder] != nil)
        #expect(ledger.keys["f479", in: flooder] == nil, "its oldest went")
        #expect(ledger.keys["q1", in: quiet] != nil, "another till's key stays")
        #expect(ledger.keys["a1"] != nil, "a shared key stays")
        #expect(ledger.keys.sharedKeys == 1)
    }

    @Test("an anonymous flood is refused in the shared namespace and never reaches a till")
    func anonymousFlood() {
        let policy = KeyMemory.Policy(capacity: 30, sharePerAddress: 10, perTill: 20)
        var ledger = StockLedger(menu: menu, initialStock: 1_000_000, keyPolicy: policy)
        var busy = 0
        for address in 0..<10 {
            for i in 0..<20 {
                let outcome = ledger.order(order("x\(address)-\(i)"), in: .shared(address: "10.0.0.\(address)"), at: 5)
                if case .unavailable(.keyMemoryFull) = outcome { busy += 1 }
            }
        }
        #expect(ledger.keys.sharedKeys == 30)
        #expect(busy == 170)
        // A till still sells with a new key, and keeps it.
        #expect(ledger.order(order("t1"), in: Writer.till(1).keyScope, at: 5).change != nil)
        #expect(ledger.keys["t1", in: Writer.till(1).keyScope] != nil)
    }

    @Test("scopes come back from a snapshot's order of keys")
    func scopesInOrder() {
        var memory = KeyMemory(policy: KeyMemory.Policy(perTill: 5))
        let entry = { (t: Int64) in KeyMemory.Entry(first: .outOfStock(OrderRequest(juice: 0, count: 1), have: [0]), at: t) }
        memory.remember("a", entry(1), in: .shared(address: "10.0.0.1"))
        memory.remember("a", entry(2), in: .own("till:7"))
        memory.remember("b", entry(3), in: .own("manager"))
        let listed = memory.inOrder.map { "\($0.scope) \($0.key)" }
        #expect(listed == ["shared(address: Optional(\"10.0.0.1\")) a", "own(\"till:7\") a", "own(\"manager\") b"])
        #expect(memory.inOrder.map { Writer(scope: $0.scope) } == [.anonymous(group: "10.0.0.1"), .till(7), .manager])
        // Per-address shares come back from the records, so they survive a restart.
        #expect(memory.held(by: "10.0.0.1") == 1)
    }

    @Test("writers read back from their record field")
    func writerFields() {
        for writer: Writer in [.till(1), .till(4_000_000_000), .manager, .anonymous(group: "10.0.0.7"), .anonymous(group: "2001:db8::/64"), .unknown] {
            #expect(Writer(field: writer.field) == writer)
        }
        for bad in ["till:0", "till:01", "till:", "till:x", "addr:", "addr:a b", "mgr", "till:99999999999"] {
            #expect(Writer(field: bad) == nil, "\(bad)")
        }
    }
}

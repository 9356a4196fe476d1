import Testing
import JuiceClient
import JuiceCore

/// StockSync's store rules, line by line: a reconnect names the store its state came from, and
/// when the greeting names another store the full state that follows `OK SINCE` is taken as a
/// resync whatever its seq, even one the old store's next change could have had.
@Suite(.onOwnThreads) struct StoreResyncRulesTests {
    static let menu = "OK MENU strawberry=strawberry:16 banana=banana:2 kiwi=kiwi:3 pineapple=pineapple:2 strawberry-banana=strawberry:10+banana:1 mango=mango:3 mango-kiwi=mango:2+kiwi:1"
    static let aliases = "OK MENU ALIASES fruit:kiwi=키위"

    static func hello(_ store: String?) -> String {
        "EVENT HELLO juice-server 1.0.0 protocol=1" + (store.map { " store=" + $0 } ?? "") + " type HELP for commands"
    }

    static func feed(_ sync: inout StockSync, _ lines: [String]) -> StockSync.Output {
        var last = StockSync.Output()
        for line in lines { last = sync.receive(ServerLine.parse(line)) }
        return last
    }

    /// A sync at seq 2 of store `store`, its connection then lost.
    static func reconnecting(store: String?) -> StockSync {
        var sync = StockSync()
        sync.connectionOpened()
        _ = feed(&sync, [hello(store), menu, aliases, "OK STOCK seq=2 strawberry=10 banana=10 pineapple=10 kiwi=10 mango=4"])
        sync.connectionOpened()
        return sync
    }

    @Test(arguments: [2, 3])
    func anotherStoresFullStateIsAResyncWhateverItsSeq(current: Int) {
        var sync = Self.reconnecting(store: "aaaa")
        #expect(sync.store == "aaaa")
        #expect(sync.receive(ServerLine.parse(Self.hello("bbbb"))).commands == ["MENU", "MENU ALIASES", "SINCE 2 store=aaaa"])
        _ = Self.feed(&sync, [Self.menu, Self.aliases, "OK SINCE 2 \(current)"])
        let out = Self.feed(&sync, ["EVENT STOCK seq=\(current) strawberry=10 banana=10 pineapple=0 kiwi=10 mango=10"])
        guard case .full(let state, let resync)? = out.updates.first else {
            Issue.record("not a full state: \(out.updates)")
            return
        }
        #expect(resync && state.seq == current && state.stock["pineapple"] == 0 && state.stock["mango"] == 10)
        #expect(sync.store == "bbbb")
    }

    /// The same store resumes with its changes; a server that names no store gets a plain SINCE.
    @Test func theSameStoreAndAServerWithoutIdsResumeAsBefore() {
        var same = Self.reconnecting(store: "aaaa")
        #expect(same.receive(ServerLine.parse(Self.hello("aaaa"))).commands == ["MENU", "MENU ALIASES", "SINCE 2 store=aaaa"])
        _ = Self.feed(&same, [Self.menu, Self.aliases, "OK SINCE 2 3"])
        let out = Self.feed(&same, ["EVENT STOCK seq=3 mango=1"])
        #expect(out.updates.map(\.description) == ["change seq 3: mango=1"])

        var old = Self.reconnecting(store: nil)
        #expect(old.receive(ServerLine.parse(Self.hello(nil))).commands == ["MENU", "MENU ALIASES", "SINCE 2"])
    }
}

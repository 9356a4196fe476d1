import JuiceCore
import JuiceDomain
import JuiceStorage
import JuicePlatform
import JuiceLog
import JuiceLoop
import JuiceServices
import JuiceLine
import JuiceHTTP
@testable import JuiceServer
import Testing

/// Startup recovery judged in-process (no server, no disk): whatever bytes the data files hold,
/// recovery either returns a sane state or refuses with the file and the byte offset. It never
/// traps, and never takes a checksum-valid record it could not have written for a torn write.
@Suite(.onOwnThreads) struct RecoveryTests {
    static let snapshotPath = "/data/snapshot"
    static let journalPath = "/data/journal"

    static func framed(_ payload: [UInt8]) -> [UInt8] {
        let crc = String(CRC32.checksum(payload), radix: 16)
        return Array("\(payload.count) \(String(repeating: "0", count: 8 - crc.count) + crc) ".utf8) + payload + [0x0A]
    }

    static func framed(_ payload: String) -> [UInt8] { framed(Array(payload.utf8)) }

    static func recover(snapshot: [UInt8]? = nil, journal: [UInt8]?, menu: Menu = .standard) throws(StorageError) -> Recovery {
        try Recovery.recover(StockLedger(menu: menu, initialStock: 10),
                             snapshot: snapshot.map { Recovery.File(path: snapshotPath, bytes: $0) },
                             journal: journal.map { Recovery.File(path: journalPath, bytes: $0) })
    }

    /// The refusal's message, or nil if recovery returned.
    static func refusal(snapshot: [UInt8]? = nil, journal: [UInt8]?) -> String? {
        do {
            _ = try recover(snapshot: snapshot, journal: journal)
            return nil
        } catch {
            return error.description
        }
    }

    static let threeOrders = ["O 1 1 banana 1 - banana=8", "O 2 2 banana 1 - banana=6", "O 3 3 banana 1 - banana=4"]
        .flatMap { framed($0) }

    @Test("records that trap or lie, refused with file and offset; a torn tail after them changes nothing", arguments: [
        "O 4 4 banana -1 - banana=8",                        // a negative count: UInt64(count) trapped
        "O 4 4 banana 1001 - banana=8",                      // over the per-order maximum
        "R 4 banana 9223372036854775807 - banana=0",         // a huge count: amount * count overflowed
        "O 4 4 banana 1 - banana=-1",                        // stock below 0
        "S 4 4 banana 1000000001",                           // stock above the limit
        "A 4 4 banana 5 3",                                  // a restock to less than its amount
        "A 4 4 banana 0 8",                                  // a restock of nothing
        "O 4 18446744073709551615 banana 1 - banana=8",      // seq 2^64-1
        "O 4 9 banana 1 - banana=8",                         // seq jumps
        "O 4 3 banana 1 - banana=8",                         // seq repeats
        "O 9 4 banana 1 - banana=8",                         // lsn jumps
        "O 3 4 banana 1 - banana=8",                         // lsn repeats
        "R 4 banana 1 -",                                    // a refusal with no fruits
        "O 4 4 banana 1 key=bad/key banana=8",               // a key the parser never accepts
        "O 4 4 banana 01 - banana=8",                        // not how the writer writes a number
        "O 4 4 banana +1 - banana=8",
        "O 4 4 banana 1 - banana=8=9",
        "O 4 4 banana 1 -  banana=8",                        // an empty field
        "H 4 4 0 0",                                         // a snapshot record in the journal
        "L mango 3",                                         // the snapshot's lost-sales counters, in the journal
        "T kiwi 1",
        "L mango 9223372036854775808",                       // and out of range
        "Z 4 4 something newer",                             // a record from a newer version
    ])
    func impossibleRecords(_ payload: String) throws {
        for tail in [[UInt8](), Self.framed("O 5 5 banana 1 - banana=2"), Array("17 deadbeef O 9 9 ban".utf8)] {
            let journal = Self.threeOrders + Self.framed(payload) + tail
            let refusal = Self.refusal(journal: journal)
            let message = try #require(refusal, "\(payload) was accepted")
            #expect(message.contains(Self.journalPath) && message.contains("offset \(Self.threeOrders.count)"), "\(message)")
        }
    }

    @Test("a snapshot header with seq 2^64-1 is refused, not trapped on at the next change")
    func hugeSnapshotSeq() throws {
        let snapshot = ["H 0 18446744073709551615 0 0", "F banana 10", "E 2"].flatMap { Self.framed($0) }
        let message = try #require(Self.refusal(snapshot: snapshot, journal: nil))
        #expect(message.contains(Self.snapshotPath) && message.contains("offset 0"), "\(message)")
        let served = ["H 0 0 18446744073709551615 0", "E 1"].flatMap { Self.framed($0) }
        #expect(Self.refusal(snapshot: served, journal: nil)?.contains("offset 0") == true)
    }

    @Test("snapshot records out of place are refused", arguments: [
        ["F banana 10", "E 1"], ["H 0 0 0 0", "F banana 10"], ["H 0 0 0 0", "F banana 10", "E 5"],
        ["H 0 0 0 0", "O 1 1 banana 1 - banana=8", "E 2"], ["H 0 0 0 0", "H 0 0 0 0", "E 2"],
        ["H 0 0 0 0", "K k banana 1 hello", "E 2"], ["H 0 0 0 0", "K k banana 1 OK ORDER banana\u{1B}[2J", "E 2"],
        ["H 0 0 0 0", "L mango -1", "E 2"], ["H 0 0 0 0", "L mango 9223372036854775808", "E 2"], ["H 0 0 0 0", "T kiwi 1 2", "E 2"],
        ["H 0 0 0 0", "T kiwi", "E 2"], ["H 0 0 0 0", "L mango 3", "E 1"],
        // Out of the writer's order, or a name or key twice (the last would silently win).
        ["H 0 0 0 0", "D banana 1", "F banana 10", "E 3"], ["H 0 0 0 0", "F banana 10", "F banana 3", "E 3"],
        ["H 0 0 0 0", "K k banana 1 OK ORDER banana 1 seq=1 banana=9 amount=4000", "K k banana 1 OK ORDER banana 1 seq=1 banana=9 amount=4000", "E 3"],
        // Hours out of time order (start, day, offset), or one hour twice.
        ["H 0 0 0 0", "Y 1795604400 2026-11-25 +0000 1 0", "Y 1795600800 2026-11-25 +0000 1 0", "E 3"],
        ["H 0 0 0 0", "Y 1795600800 2026-11-25 +0900 1 0", "Y 1795600800 2026-11-25 +0000 1 0", "E 3"],
        ["H 0 0 0 0", "Y 1795600800 2026-11-25 +0000 1 0", "Y 1795600800 2026-11-25 +0000 1 0", "E 3"],
    ])
    func snapshotShape(_ records: [String]) throws {
        let refusal = Self.refusal(snapshot: records.flatMap { Self.framed($0) }, journal: nil)
        let message = try #require(refusal, "\(records) was accepted")
        #expect(message.contains(Self.snapshotPath) && message.contains("offset "), "\(message)")
    }

    @Test("a torn last record is still cut off, and a name no longer on the menu is still skipped")
    func tornAndMenuChange() throws {
        let torn = try Self.recover(journal: Self.threeOrders + Array("25 00000000 O 4 4 banana 1 - banana=2\n".utf8))
        #expect(torn.tornTail?.offset == Self.threeOrders.count)
        #expect(torn.journalLength == Self.threeOrders.count)
        #expect(torn.ledger.seq == 3 && torn.ledger.stock[1] == 4)
        let dropped = Self.threeOrders + ["O 4 4 durian 1 - durian=3", "A 5 5 durian 3 6", "R 6 durian 1 - durian=0",
                                          "S 7 6 banana 7"].flatMap { Self.framed($0) }
        let recovered = try Self.recover(journal: dropped)
        #expect(recovered.tornTail == nil)
        #expect(recovered.ledger.seq == 6 && recovered.lsn == 7 && recovered.ledger.stock[1] == 7)
        #expect(recovered.ledger.ordersServed == 4 && recovered.ledger.ordersRefused == 1)
    }

    @Test("records already in the snapshot are skipped, but must still be in order")
    func interruptedCompaction() throws {
        let snapshot = ["H 3 3 3 0", "F banana 4", "E 2"].flatMap { Self.framed($0) }
        let next = Self.framed("O 4 4 banana 1 - banana=2")
        let recovered = try Self.recover(snapshot: snapshot, journal: Self.threeOrders + next)
        #expect(recovered.ledger.seq == 4 && recovered.ledger.stock[1] == 2 && recovered.lsn == 4)
        // A power cut can lose journal records the snapshot already holds: the next ones follow it.
        let first = Self.framed("O 1 1 banana 1 - banana=8")
        let lost = try Self.recover(snapshot: snapshot, journal: first + next)
        #expect(lost.ledger.seq == 4 && lost.lsn == 4)
        let second = Self.framed("O 2 2 banana 1 - banana=6")
        let backwards = second + first + next
        #expect(Self.refusal(snapshot: snapshot, journal: backwards)?.contains("offset \(second.count)") == true)
    }

    // MARK: - Lost sales

    static let refusals = ["R 4 strawberry-banana 2 - strawberry=10 banana=10", "R 5 mango-kiwi 1000 key=k mango=10 kiwi=10"]

    @Test("lost sales are rebuilt from the refusals; a snapshot without L and T records means zero")
    func lostSalesFromRefusals() throws {
        let journal = Self.threeOrders + Self.refusals.flatMap { Self.framed($0) }
        let fromJournal = try Self.recover(journal: journal)
        #expect(fromJournal.ledger.lost == [0, 0, 0, 0, 2, 0, 1000])
        #expect(fromJournal.ledger.short == [1, 0, 0, 1, 1], "strawberry, kiwi and mango were short; banana was not")
        #expect(fromJournal.ledger.ordersRefused == 2)
        // A snapshot written before the counters existed: they start at 0, the journal adds on.
        let oldSnapshot = ["H 3 3 3 0", "F banana 4", "D banana 3", "E 3"].flatMap { Self.framed($0) }
        let fromOld = try Self.recover(snapshot: oldSnapshot, journal: journal)
        #expect(fromOld.ledger.lost == [0, 0, 0, 0, 2, 0, 1000] && fromOld.ledger.short == [1, 0, 0, 1, 1])
        #expect(fromOld.ledger.sold[1] == 3 && fromOld.lsn == 5)
    }

    /// A snapshot holds the counters at its lsn; the journal records at or below it (left by a
    /// compaction interrupted before it emptied the journal, or by the snapshot written at a menu
    /// change) must not count again.
    @Test("counters come from the snapshot plus only the records after it: nothing counts twice")
    func lostSalesNotDoubled() throws {
        let upToSnapshot = Self.threeOrders + Self.refusals.flatMap { Self.framed($0) }
        let atSnapshot = try Self.recover(journal: upToSnapshot)
        let snapshot = Snapshot.encode(atSnapshot.ledger, lsn: atSnapshot.lsn)
        #expect(String(decoding: snapshot, as: UTF8.self).contains(" L mango-kiwi 1000\n"))
        #expect(String(decoding: snapshot, as: UTF8.self).contains(" T kiwi 1\n"))
        let after = Self.framed("R 6 strawberry 1 - strawberry=10")
        let truth = try Self.recover(journal: upToSnapshot + after)
        for journal in [upToSnapshot + after, after, upToSnapshot] {
            let recovered = try Self.recover(snapshot: snapshot, journal: journal)
            let expected = journal == upToSnapshot ? atSnapshot : truth
            #expect(recovered.ledger.lost == expected.ledger.lost && recovered.ledger.short == expected.ledger.short)
            #expect(recovered.ledger.ordersRefused == expected.ledger.ordersRefused)
        }
        #expect(truth.ledger.lost == [1, 0, 0, 0, 2, 0, 1000] && truth.ledger.short == [2, 0, 0, 1, 1])
        // And once more through a second snapshot of the recovered state (a second compaction).
        let again = try Self.recover(snapshot: Snapshot.encode(truth.ledger, lsn: truth.lsn), journal: upToSnapshot + after)
        #expect(again.ledger.lost == truth.ledger.lost && again.ledger.short == truth.ledger.short)
    }

    @Test("after a menu change: a fruit or juice no longer on the menu is skipped, a recipe fruit the record lacks is not short")
    func lostSalesAfterMenuChange() throws {
        // kiwi is gone; mango-kiwi is now mango 2 + banana 1; the kiwi juice is gone.
        let menu = try Menu(fruits: [Fruit(name: "mango"), Fruit(name: "banana")],
                            juices: [Juice(name: "mango-kiwi", recipe: [Ingredient(fruit: 0, amount: 2), Ingredient(fruit: 1, amount: 1)]),
                                     Juice(name: "banana", recipe: [Ingredient(fruit: 1, amount: 2)])])
        let journal = ["R 1 mango-kiwi 1000 - mango=10 kiwi=10", "R 2 kiwi 1 - kiwi=0", "R 3 banana 1 key=b banana=1"]
            .flatMap { Self.framed($0) }
        // In the writer's order (F, D, L, T, K): recovery refuses any other.
        let snapshot = ["H 0 0 0 0", "F mango 10", "L durian 5", "L banana 2", "T kiwi 3", "T banana 1", "E 6"].flatMap { Self.framed($0) }
        let recovered = try Self.recover(snapshot: snapshot, journal: journal, menu: menu)
        #expect(recovered.ledger.lost == [1000, 3])
        #expect(recovered.ledger.short == [1, 2], "mango short once; banana once in the snapshot, once in R 3")
        #expect(recovered.ledger.ordersRefused == 3)
        #expect(recovered.ledger.keys["b"].map { Wire.replyLine(to: $0.first, menu: menu) } == Array("ERR OUT_OF_STOCK needs banana=2 has banana=1".utf8))
    }

    /// A refusal kept under an older recipe may name no fruit the current one finds short: the
    /// snapshot then keeps `needs  has ` (empty lists), and must read it back (it refused to
    /// start on its own snapshot: found by a differential run against the previous build).
    @Test func aKeptRefusalWithEmptyListsIsReadBack() throws {
        let write = try #require(JournalRecord.KeyedWrite(rawValue: "ORDER"))
        let kept = JournalRecord.rememberedKey(key: "oos1", write: write, name: "strawberry", number: 1,
                                               reply: "ERR OUT_OF_STOCK needs  has ", time: 1_800_000_000)
        let snapshot = ["H 0 0 0 0"].flatMap { Self.framed($0) } + kept.framed() + Self.framed("E 2")
        let recovered = try Self.recover(snapshot: snapshot, journal: nil)
        let entry = try #require(recovered.ledger.keys["oos1"])
        #expect(String(decoding: Wire.replyLine(to: entry.first, menu: .standard), as: UTF8.self) == "ERR OUT_OF_STOCK needs  has ")
        // Written again by the next snapshot, it reads back the same.
        #expect(RecordedReply.outcome("ERR OUT_OF_STOCK needs  has ", request: entry.request, key: "oos1", menu: .standard) == entry.first)
    }

    /// The other direction: nothing the store writes is refused by recovery, at the edges of
    /// what names, keys and numbers may be.
    @Test("whatever the store writes, recovery reads back as the same state")
    func writerAndReaderAgree() throws {
        let menu = try Menu(fruits: [Fruit(name: String(repeating: "K", count: 64)), Fruit(name: "\u{1F468}\u{200D}\u{1F373}"),
                                     Fruit(name: "-", aliases: ["caf\u{E9}"]), Fruit(name: "E")],
                            juices: [Juice(name: "1", recipe: [Ingredient(fruit: 0, amount: 1_000_000)]),
                                     Juice(name: "-", recipe: [Ingredient(fruit: 1, amount: 1), Ingredient(fruit: 2, amount: 1), Ingredient(fruit: 3, amount: 1)]),
                                     Juice(name: "\u{D55C}", recipe: [Ingredient(fruit: 3, amount: Limits.maxStock)])])
        var ledger = StockLedger(menu: menu, initialStock: 0)
        var records: [JournalRecord] = []
        func log(_ record: (UInt64) -> JournalRecord) { records.append(record(UInt64(records.count + 1))) }
        let keys = ["-", String(repeating: "z", count: Limits.maxKeyBytes), "A.b_C:d-0", nil]
        // Version-2 records: every one with its time, which the keys are aged by.
        let start: Int64 = 1_800_000_000
        for round in 0..<40 {
            let fruit = round % 4
            let t = start + Int64(round)
            if round % 3 == 0 {
                let change = ledger.set(fruit: fruit, amount: round % 2 == 0 ? Limits.maxStock : 0)
                log { .set(lsn: $0, seq: change.seq, fruit: menu.fruits[fruit].name, value: change.touched[0].value, time: t) }
            } else {
                // Up to the limit exactly, or one past it (refused, so not journaled).
                let amount = max(1, Limits.maxStock - ledger.stock[fruit] + round % 2)
                if let change = ledger.restock(fruit: fruit, amount: amount) {
                    log { .restock(lsn: $0, seq: change.seq, fruit: menu.fruits[fruit].name, amount: amount, total: change.touched[0].value, time: t) }
                }
            }
            let juice = round % 3
            let request = OrderRequest(juice: juice, count: round % 2 == 0 ? Limits.maxOrderCount : 1, key: keys[round % 4].map { $0 + "\(round)" }.map { String($0.suffix(Limits.maxKeyBytes)) })
            let recipe = menu.juices[juice].recipe
            switch ledger.order(request, at: t) {
            case .applied(let change):
                log { .order(lsn: $0, seq: change.seq, juice: menu.juices[juice].name, count: request.count, key: request.key,
                             left: change.touched.map { .init(menu.fruits[$0.fruit].name, $0.value) }, time: t) }
            case .outOfStock(_, let have):
                log { .refusal(lsn: $0, juice: menu.juices[juice].name, count: request.count, key: request.key,
                               had: zip(recipe, have).map { .init(menu.fruits[$0.0.fruit].name, $0.1) }, time: t) }
            default:
                break
            }
        }
        let fresh = StockLedger(menu: menu, initialStock: 0)
        let now = start + 100
        let fromJournal = try Recovery.recover(fresh, snapshot: nil,
                                               journal: Recovery.File(path: Self.journalPath, bytes: records.flatMap { $0.framed() }), now: now)
        let fromSnapshot = try Recovery.recover(fresh, snapshot: Recovery.File(path: Self.snapshotPath,
                                                bytes: Snapshot.encode(ledger, lsn: UInt64(records.count))), journal: nil, now: now)
        for recovered in [fromJournal, fromSnapshot] {
            #expect(recovered.tornTail == nil)
            #expect(recovered.lsn == UInt64(records.count))
            #expect(recovered.ledger.stock == ledger.stock && recovered.ledger.seq == ledger.seq && recovered.ledger.sold == ledger.sold)
            #expect(recovered.ledger.ordersServed == ledger.ordersServed && recovered.ledger.ordersRefused == ledger.ordersRefused)
            #expect(recovered.ledger.lost == ledger.lost && recovered.ledger.short == ledger.short)
            #expect(recovered.ledger.keys.inOrder.map(\.key) == ledger.keys.inOrder.map(\.key))
            // A snapshot keeps a key's first outcome as its reply text, which names only the
            // short fruits of a refusal: the words must come back exactly.
            let words = { (keys: KeyMemory) in keys.inOrder.map { ($0.entry.request, Wire.replyLine(to: $0.entry.first, menu: menu), $0.entry.time) } }
            #expect(words(recovered.ledger.keys).elementsEqual(words(ledger.keys)) { $0 == $1 })
        }
        #expect(ledger.ordersServed > 0 && ledger.ordersRefused > 0 && ledger.keys.count > 0)
        #expect(ledger.lost.contains { $0 > 0 } && ledger.short.contains { $0 > 0 })
    }
}

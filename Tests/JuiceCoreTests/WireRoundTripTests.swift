import Foundation
import Testing
@testable import JuiceCore
import JuiceDomain
import JuiceStorage

/// Every line `Wire` builds, read back by the client-side reader (`ServerLine`, `WireReader`),
/// gives the domain values it was built from: the writer and the reader cannot drift apart.
@Suite("Wire round trip", .onOwnThreads)
struct WireRoundTripTests {
    let menu = Menu.standard

    /// A built line without its CRLF, classified.
    func read(_ out: [UInt8]) -> ServerLine {
        #expect(out.suffix(2) == [13, 10], "every line ends with CRLF")
        return ServerLine.parse(String(decoding: out.dropLast(2), as: UTF8.self))
    }

    /// The byte-level seq reader, on the bytes as the wire carries them.
    func byteSeq(_ out: [UInt8]) -> UInt64? {
        out.withUnsafeBytes { WireReader.seq(in: $0) }
    }

    /// A few changes of every kind, from a real ledger (so the values are ones the server sends).
    func changes() throws -> [Change] {
        var l = StockLedger(menu: menu)
        return [
            try #require(l.order(OrderRequest(juice: J.mangoKiwi, count: 2)).change),
            try #require(l.order(OrderRequest(juice: J.strawberryBanana, count: 1, key: "k")).change),
            try l.restock(fruit: F.kiwi, amount: 999_999_000).get(),
            l.set(fruit: F.banana, amount: 0),
            // The largest seq a client reads (`StockUpdate.seq` is an Int; 2^63 changes never happen).
            Change(seq: UInt64(Int.max), kind: .set(fruit: F.mango, amount: 1_000_000_000),
                   touched: [FruitValue(fruit: F.mango, value: 1_000_000_000)]),
        ]
    }

    @Test("ORDER, RESTOCK and SET replies")
    func replies() throws {
        for change in try changes() {
            var out: [UInt8] = []
            Wire.appendReply(for: change, menu: menu, to: &out)
            #expect(byteSeq(out) == change.seq)
            guard case .ok(let verb, let fields) = read(out) else {
                Issue.record("not an OK reply: \(out.string)")
                continue
            }
            let valueFields = fields[...]
            switch change.kind {
            case .order(let request):
                #expect(verb == "ORDER")
                // Read as a client does: the money after the stock is its own field.
                let reply = try #require(WireReader.order(fields: fields))
                #expect(menu.juiceIndex(reply.juice) == request.juice && reply.count == request.count)
                #expect(reply.amount == change.amount && reply.amount == menu.amount(juice: request.juice, count: request.count))
                #expect(WireReader.fruitValues(reply.update, menu: menu) == change.touched)
                #expect(Wire.replyLine(for: change, menu: menu) + [13, 10] == out)
                continue
            case .restock:
                #expect(verb == "RESTOCK")
            case .set:
                #expect(verb == "SET")
            case .void:
                Issue.record("no void among the changes")
            }
            let update = try #require(StockUpdate.parse(fields: Array(valueFields)))
            #expect(UInt64(update.seq) == change.seq)
            #expect(WireReader.fruitValues(update, menu: menu) == change.touched)
            // The form a keyed order is remembered in is the same line without CRLF.
            #expect(Wire.replyLine(for: change, menu: menu) + [13, 10] == out)
        }
    }

    @Test("a repeated keyed order's reply is the original with dup")
    func duplicate() throws {
        let change = try #require(try changes().first)
        let out = Wire.replyLine(for: change, menu: menu) + Wire.dupSuffix
        guard case .ok("ORDER", let fields) = read(out) else {
            Issue.record("not an OK ORDER reply: \(out.string)")
            return
        }
        #expect(fields.last == "dup")
        #expect(byteSeq(out) == change.seq)
    }

    @Test("STOCK events, the full event and STOCK replies")
    func stockLines() throws {
        for change in try changes() {
            var out: [UInt8] = []
            Wire.appendEvent(seq: change.seq, change.touched, menu: menu, to: &out)
            #expect(byteSeq(out) == change.seq)
            guard case .stockEvent(let update) = read(out) else {
                Issue.record("not a stock event: \(out.string)")
                continue
            }
            #expect(UInt64(update.seq) == change.seq)
            #expect(WireReader.fruitValues(update, menu: menu) == change.touched)
        }
        let stock = [0, 1, 999, 1_000_000_000, 10]
        let every = stock.enumerated().map { FruitValue(fruit: $0.offset, value: $0.element) }
        var out: [UInt8] = []
        Wire.appendFullEvent(seq: 42, stock: stock, menu: menu, to: &out)
        guard case .stockEvent(let full) = read(out) else {
            Issue.record("not a stock event: \(out.string)")
            return
        }
        #expect(full.seq == 42 && WireReader.fruitValues(full, menu: menu) == every)
        for only in [nil, F.kiwi] as [Int?] {
            out = []
            Wire.appendStock(seq: 7, stock: stock, only: only, menu: menu, to: &out)
            guard case .ok("STOCK", let fields) = read(out), let update = StockUpdate.parse(fields: fields) else {
                Issue.record("not an OK STOCK reply: \(out.string)")
                continue
            }
            #expect(update.seq == 7 && byteSeq(out) == 7)
            #expect(WireReader.fruitValues(update, menu: menu) == (only.map { [every[$0]] } ?? every))
        }
    }

    @Test("event-stream messages, read back by EventStreamReader as an EventSource would")
    func streamEvents() throws {
        let ledger = StockLedger(menu: menu)
        var out: [UInt8] = []
        var expected: [(seq: UInt64, stock: [String: Int])] = []
        Wire.appendFullStreamEvent(seq: 0, stock: ledger.stock, menu: menu, to: &out)
        expected.append((0, Dictionary(uniqueKeysWithValues: menu.fruits.map { ($0.name, 10) })))
        out += Wire.streamPing
        for change in try changes() {
            Wire.appendStreamEvent(seq: change.seq, change.touched, menu: menu, to: &out)
            expected.append((change.seq, Dictionary(uniqueKeysWithValues: change.touched.map { (menu.fruits[$0.fruit].name, $0.value) })))
        }
        var reader = EventStreamReader(readsHead: false, keepsFields: true)
        var read: [(seq: UInt64, stock: [String: Int])] = []
        var pings = 0
        for line in out.split(separator: 10, omittingEmptySubsequences: false).dropLast() {
            switch reader.line(String(decoding: line, as: UTF8.self)) {
            case .message(let id):
                let block = reader.block
                #expect(block.event == "stock" && block.id == id.map(String.init))
                let object = try #require(try JSONSerialization.jsonObject(with: Data((block.data ?? "").utf8)) as? [String: Any])
                let seq = try #require((object["seq"] as? NSNumber)?.uint64Value)
                #expect(seq == id, "data's seq is the id")
                read.append((seq, try #require(object["stock"] as? [String: Int])))
            case .emptyBlock:
                pings += reader.block.comments == ["ping"] ? 1 : 0
            case .none: break
            case .refused(let why): Issue.record("refused: \(why)")
            }
        }
        #expect(pings == 1)
        #expect(read.map(\.seq) == expected.map(\.seq))
        #expect(read.map(\.stock) == expected.map(\.stock))
    }

    @Test("MENU and MENU ALIASES give back the whole menu", arguments: [
        Menu.standard,
        // A fruit no recipe uses (only the aliases line lists it), several aliases, none.
        try! Menu(fruits: [Fruit(name: "plum", aliases: ["자두", "p"]), Fruit(name: "unused"), Fruit(name: "kiwi")],
                  juices: [Juice(name: "mix", aliases: ["믹스"], recipe: [Ingredient(fruit: 2, amount: 3), Ingredient(fruit: 0, amount: 1)]),
                           Juice(name: "plum", recipe: [Ingredient(fruit: 0, amount: 1_000_000_000)])]),
    ])
    func menus(_ menu: Menu) throws {
        guard case .ok("MENU", let menuFields) = ServerLine.parse(Wire.menuLine(menu)),
              case .ok("MENU", let aliasFields) = ServerLine.parse(Wire.menuAliasesLine(menu)),
              aliasFields.first == "ALIASES" else {
            Issue.record("not OK MENU replies")
            return
        }
        #expect(Wire.menuReply(menu) == bytes(Wire.menuLine(menu) + "\r\n"))
        #expect(Wire.menuAliasesReply(menu) == bytes(Wire.menuAliasesLine(menu) + "\r\n"))
        let aliases = MenuAliases.parse(fields: Array(aliasFields.dropFirst()))
        #expect(aliases.fruitOrder == menu.fruits.map(\.name))
        // MENU and MENU ALIASES carry no prices (MENU PRICES does): the same menu, unpriced.
        let unpriced = try Menu(fruits: menu.fruits, juices: menu.juices.map { Juice(name: $0.name, aliases: $0.aliases, recipe: $0.recipe) })
        #expect(WireReader.menu(fields: menuFields, aliases: aliases) == unpriced)
        // The MENU line alone: the same juices and recipes, over the fruits the recipes name.
        let alone = try #require(WireReader.menu(line: Wire.menuLine(menu)))
        #expect(alone.juices.map(\.name) == menu.juices.map(\.name))
        for (a, b) in zip(alone.juices, menu.juices) {
            #expect(a.recipe.map { alone.fruits[$0.fruit].name } == b.recipe.map { menu.fruits[$0.fruit].name })
            #expect(a.recipe.map(\.amount) == b.recipe.map(\.amount))
        }
    }

    @Test("OK SINCE", arguments: [(UInt64(0), UInt64(0)), (57, 60), (60, 3), (UInt64.max, UInt64(Int64.max))])
    func since(_ after: UInt64, _ current: UInt64) {
        var out: [UInt8] = []
        Wire.sinceHeader(after: after, current: current, to: &out)
        guard case .ok("SINCE", let fields) = read(out) else {
            Issue.record("not OK SINCE: \(out.string)")
            return
        }
        let read = WireReader.since(fields: fields)
        #expect(read?.after == after && read?.current == current)
    }

    @Test("OK STATS, in memory and durable", arguments: [nil, (UInt64(12), UInt64(345))] as [(UInt64, UInt64)?])
    func stats(_ journal: (UInt64, UInt64)?) throws {
        let values = StatsValues(clients: 3, uptimeSeconds: 42, seq: 4, ordersServed: 3, ordersRefused: 1,
                                 sold: [0, 1, 0, 0, 1, 0, 2], lost: [3, 0, 0, 0, 2, 0, 1000], short: [2, 0, 0, 0, 1],
                                 keys: 1, journal: journal.map { JournalCounts(syncs: $0.0, records: $0.1) })
        var out: [UInt8] = []
        Wire.stats(values, menu: menu, to: &out)
        guard case .ok("STATS", let fields) = read(out) else {
            Issue.record("not OK STATS: \(out.string)")
            return
        }
        #expect(WireReader.stats(fields: fields, menu: menu) == values)
        #expect(WireReader.integers(in: out.string)["sold_mango-kiwi"] == 2)
        // Keys a later version adds are ignored; a missing counter is no reading.
        #expect(WireReader.stats(fields: fields + ["new_counter=1"], menu: menu) == values)
        #expect(WireReader.stats(fields: fields.filter { !$0.hasPrefix("keys=") }, menu: menu) == nil)
        #expect(WireReader.stats(fields: fields.filter { !$0.hasPrefix("lost_mango-kiwi=") }, menu: menu) == nil)
        #expect(WireReader.stats(fields: fields.filter { !$0.hasPrefix("short_kiwi=") }, menu: menu) == nil)
        #expect(WireReader.integers(in: out.string)["lost_mango-kiwi"] == 1000 && WireReader.integers(in: out.string)["short_strawberry"] == 2)
    }

    @Test("ERR lines, among them OUT_OF_STOCK from a real refusal")
    func errors() throws {
        var l = StockLedger(menu: menu)
        let refused = l.order(OrderRequest(juice: J.strawberryBanana, count: 2))
        guard case .outOfStock = refused, let outOfStock = Wire.refusal(refused, menu: menu) else {
            Issue.record("should be refused")
            return
        }
        let refusals = [outOfStock, Wire.noManagerToken, Wire.wrongToken(closingAfter: 3), Wire.tooManyAuthFailures(retryIn: 30, closing: true), Wire.lineTooLong,
                        Wire.keyReused(key: "k", for: .order(juice: J.mango, count: 1), menu: menu),
                        Wire.keyReused(key: "k", for: .restock(fruit: F.kiwi, amount: 5), menu: menu),
                        Wire.keyMemoryFull(.addressFull(retryAfterSeconds: 30)), Wire.keyMemoryFull(.full(retryAfterSeconds: 1)),
                        Wire.overLimit(fruit: F.kiwi, stock: 10, adding: 999_999_991, menu: menu)]
        for error in refusals {
            var out: [UInt8] = []
            error.append(to: &out)
            #expect(read(out) == .err(code: error.code.rawValue, message: error.message))
            #expect(error.line + "\r\n" == out.string)
        }
        #expect(read(Wire.busy) == .err(code: ErrorCode.busy.rawValue, message: "max clients reached"))
    }

    @Test("the fixed lines")
    func fixedLines() {
        var hello: [UInt8] = []
        Wire.hello(to: &hello)
        #expect(read(hello) == .hello("juice-server \(JuiceVersion.current) protocol=1 type HELP for commands"))
        #expect(read(Wire.byeEvent) == .bye("shutting down"))
        #expect(read(Wire.pong) == .ok(verb: "PONG", fields: []))
        #expect(read(Wire.bye) == .ok(verb: "BYE", fields: []))
        #expect(read(Wire.authOK) == .ok(verb: "AUTH", fields: []))
        #expect(read(Wire.eventsReply(on: true)) == .ok(verb: "EVENTS", fields: ["on"]))
        #expect(read(Wire.eventsReply(on: false)) == .ok(verb: "EVENTS", fields: ["off"]))
        guard case .ok("HELP", let fields) = read(Wire.help) else {
            Issue.record("not OK HELP")
            return
        }
        #expect(fields.joined(separator: " ") == Wire.commandList)
    }

    @Test("seq is read only as a whole word with digits", arguments: [
        ("seq=5 kiwi=1", UInt64(5) as UInt64?), ("OK ORDER x 1 seq=18446744073709551615", UInt64.max),
        ("OK ORDER x 1 xseq=7", nil), ("EVENT STOCK seq= kiwi=1", nil), ("OK PONG", nil), ("seq=", nil), ("", nil),
    ])
    func seqWords(_ line: String, _ seq: UInt64?) {
        #expect(WireReader.seq(in: line) == seq)
        #expect(bytes(line).withUnsafeBytes { WireReader.seq(in: $0) } == seq)
    }
}

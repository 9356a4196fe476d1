import Testing
@testable import JuiceCore
import JuiceDomain
import JuiceStorage

@Suite("Wire", .onOwnThreads)
struct WireTests {
    let menu = Menu.standard

    func reply(_ change: Change, lineEnd: Bool = true) -> String {
        var out: [UInt8] = []
        Wire.appendReply(for: change, menu: menu, to: &out, lineEnd: lineEnd)
        return out.string
    }

    @Test("ORDER, RESTOCK and SET replies")
    func replies() throws {
        var l = StockLedger(menu: menu)
        let order = try #require(l.order(OrderRequest(juice: J.mangoKiwi, count: 2)).change)
        #expect(reply(order) == "OK ORDER mango-kiwi 2 seq=1 mango=6 kiwi=8 amount=11000\r\n")
        #expect(reply(order, lineEnd: false) == "OK ORDER mango-kiwi 2 seq=1 mango=6 kiwi=8 amount=11000")
        let restock = try l.restock(fruit: F.kiwi, amount: 7).get()
        #expect(reply(restock) == "OK RESTOCK seq=2 kiwi=15\r\n")
        let set = l.set(fruit: F.kiwi, amount: 2)
        #expect(reply(set) == "OK SET seq=3 kiwi=2\r\n")
        // The canonical name, whatever alias the client used.
        let strawberry = try #require(l.order(OrderRequest(juice: J.strawberryBanana, count: 1, key: "a")).change)
        #expect(reply(strawberry) == "OK ORDER strawberry-banana 1 seq=4 strawberry=0 banana=9 amount=5500\r\n")
    }

    @Test("replies append to what the buffer already holds")
    func appends() {
        var out = bytes("EVENT X\r\n")
        Wire.appendReply(for: Change(seq: 9, kind: .set(fruit: F.mango, amount: 0), touched: [FruitValue(fruit: F.mango, value: 0)]),
                         menu: menu, to: &out)
        #expect(out.string == "EVENT X\r\nOK SET seq=9 mango=0\r\n")
    }

    @Test("STOCK events")
    func events() {
        var out: [UInt8] = []
        Wire.appendEvent(seq: 1, [FruitValue(fruit: F.mango, value: 6), FruitValue(fruit: F.kiwi, value: 8)], menu: menu, to: &out)
        #expect(out.string == "EVENT STOCK seq=1 mango=6 kiwi=8\r\n")
        out = []
        Wire.appendFullEvent(seq: 12, stock: [1, 2, 3, 4, 1_000_000_000], menu: menu, to: &out)
        #expect(out.string == "EVENT STOCK seq=12 strawberry=1 banana=2 pineapple=3 kiwi=4 mango=1000000000\r\n")
    }

    @Test("STOCK replies")
    func stock() {
        let l = StockLedger(menu: menu)
        var out: [UInt8] = []
        Wire.appendStock(seq: l.seq, stock: l.stock, only: nil, menu: menu, to: &out)
        #expect(out.string == "OK STOCK seq=0 strawberry=10 banana=10 pineapple=10 kiwi=10 mango=10\r\n")
        out = []
        Wire.appendStock(seq: 5, stock: [0, 1, 2, 3, 4], only: F.kiwi, menu: menu, to: &out)
        #expect(out.string == "OK STOCK seq=5 kiwi=3\r\n")
        out = []
        Wire.appendStock(seq: UInt64.max, stock: [0, 1, 2, 3, 4], only: F.strawberry, menu: menu, to: &out)
        #expect(out.string == "OK STOCK seq=18446744073709551615 strawberry=0\r\n")
    }

    @Test("the MENU line")
    func menuLine() {
        #expect(Wire.menuLine(menu) == "OK MENU strawberry=strawberry:16 banana=banana:2 kiwi=kiwi:3 pineapple=pineapple:2 strawberry-banana=strawberry:10+banana:1 mango=mango:3 mango-kiwi=mango:2+kiwi:1")
    }

    @Test("the MENU ALIASES line")
    func menuAliasesLine() throws {
        #expect(Wire.menuAliasesLine(menu) == "OK MENU ALIASES fruit:strawberry=딸기 fruit:banana=바나나 fruit:pineapple=파인애플 fruit:kiwi=키위 fruit:mango=망고 juice:strawberry=딸기쥬스 juice:banana=바나나쥬스 juice:kiwi=키위쥬스 juice:pineapple=파인애플쥬스 juice:strawberry-banana=딸바쥬스 juice:mango=망고쥬스 juice:mango-kiwi=망키쥬스")
        let small = try Menu(fruits: [Fruit(name: "a", aliases: ["x", "y"]), Fruit(name: "b")],
                             juices: [Juice(name: "j", recipe: [Ingredient(fruit: 1, amount: 1)])])
        #expect(Wire.menuAliasesLine(small) == "OK MENU ALIASES fruit:a=x,y fruit:b= juice:j=")
        #expect(Wire.menuLine(small) == "OK MENU j=b:1")
    }

    @Test("the greeting")
    func hello() {
        var out: [UInt8] = []
        Wire.hello(to: &out)
        #expect(out.string == "EVENT HELLO juice-server 1.0.0 protocol=1 type HELP for commands\r\n")
    }

    @Test("the fixed lines, SINCE and STATS, byte for byte")
    func fixedLines() {
        #expect(Wire.pong.string == "OK PONG\r\n")
        #expect(Wire.bye.string == "OK BYE\r\n")
        #expect(Wire.authOK.string == "OK AUTH\r\n")
        #expect(Wire.eventsReply(on: true).string == "OK EVENTS on\r\n")
        #expect(Wire.eventsReply(on: false).string == "OK EVENTS off\r\n")
        #expect(Wire.busy.string == "ERR BUSY max clients reached\r\n")
        #expect(Wire.byeEvent.string == "EVENT BYE shutting down\r\n")
        #expect(Wire.help.string == "OK HELP \(Wire.commandList)\r\n")
        #expect((bytes("OK ORDER banana 1 seq=3 banana=7 amount=4000") + Wire.dupSuffix).string == "OK ORDER banana 1 seq=3 banana=7 amount=4000 dup\r\n")
        var out: [UInt8] = []
        Wire.sinceHeader(after: 57, current: 60, to: &out)
        #expect(out.string == "OK SINCE 57 60\r\n")
        out = []
        var stats = StatsValues(clients: 3, uptimeSeconds: 42, seq: 4, ordersServed: 3, ordersRefused: 1,
                                sold: [0, 1, 0, 0, 1, 0, 2], lost: [0, 0, 0, 0, 2, 0, 0], short: [1, 0, 0, 0, 0], keys: 1, journal: nil)
        Wire.stats(stats, menu: menu, to: &out)
        #expect(out.string == "OK STATS clients=3 uptime_s=42 seq=4 orders_served=3 orders_refused=1 sold_strawberry=0 sold_banana=1 sold_kiwi=0 sold_pineapple=0 sold_strawberry-banana=1 sold_mango=0 sold_mango-kiwi=2 lost_strawberry=0 lost_banana=0 lost_kiwi=0 lost_pineapple=0 lost_strawberry-banana=2 lost_mango=0 lost_mango-kiwi=0 short_strawberry=1 short_banana=0 short_pineapple=0 short_kiwi=0 short_mango=0 durable=no keys=1\r\n")
        out = []
        stats.journal = JournalCounts(syncs: 5, records: 9)
        Wire.stats(stats, menu: menu, to: &out)
        #expect(out.string.hasSuffix(" durable=yes keys=1 journal_syncs=5 journal_records=9\r\n"))
    }

    @Test("the command list names every verb")
    func commandList() {
        for verb in Verb.allCases {
            #expect(Wire.commandList.contains(verb.rawValue))
        }
    }

    @Test("ERR lines")
    func errLine() {
        var out: [UInt8] = []
        ProtocolError(.outOfStock, "needs banana=2 has banana=0").append(to: &out)
        #expect(out.string == "ERR OUT_OF_STOCK needs banana=2 has banana=0\r\n")
        #expect(ErrorCode.allCases.map(\.rawValue) == [
            "UNKNOWN_COMMAND", "UNKNOWN_JUICE", "UNKNOWN_FRUIT", "BAD_ARGUMENT", "OUT_OF_STOCK", "OVER_LIMIT",
            "BAD_REQUEST", "LINE_TOO_LONG", "KEY_REUSED", "FORBIDDEN", "AUTH_FAILED", "BUSY", "READ_ONLY",
            "REVOKED", "SHUTTING_DOWN", "NO_SUCH_SALE", "ALREADY_VOIDED",
        ])
    }

    @Test("decimal digits of unsigned numbers", arguments: [
        (UInt64(0), "0"), (9, "9"), (10, "10"), (99, "99"), (100, "100"), (1_000_000_000, "1000000000"),
        (UInt64(Int64.max), "9223372036854775807"), (UInt64.max, "18446744073709551615"),
        (UInt64.max - 1, "18446744073709551614"), (10_000_000_000_000_000_000, "10000000000000000000"),
    ])
    func unsignedDecimal(_ value: UInt64, _ text: String) {
        var out = bytes("x=")
        out.append(decimal: value)
        #expect(out.string == "x=" + text)
    }

    @Test("decimal digits of signed numbers", arguments: [
        (0, "0"), (9, "9"), (10, "10"), (-1, "-1"), (-9, "-9"), (-10, "-10"), (-1_000_000_000, "-1000000000"),
        (Int.max, "9223372036854775807"), (Int.min, "-9223372036854775808"),
    ])
    func signedDecimal(_ value: Int, _ text: String) {
        var out: [UInt8] = []
        out.append(decimal: value)
        #expect(out.string == text)
    }

    @Test("decimal agrees with String for many numbers")
    func decimalAgrees() {
        var rng = SeededRNG(seed: 77)
        for _ in 0..<2000 {
            let u = rng.next() >> (rng.next() % 64)
            var a: [UInt8] = []
            a.append(decimal: u)
            #expect(a.string == String(u))
            let i = Int(bitPattern: UInt(rng.next())) >> Int(rng.next() % 64)
            var b: [UInt8] = []
            b.append(decimal: i)
            #expect(b.string == String(i))
        }
    }

    @Test("the small byte helpers")
    func helpers() {
        var out: [UInt8] = []
        out.append(ascii: "OK")
        out.append(" 망고")
        out.appendLineEnd()
        #expect(out == bytes("OK 망고\r\n"))
    }
}

import Foundation
import JuiceCore
import JuiceTestSupport
import Testing

/// Money (issue 33) against the built server over real sockets: a sale's amount is the price
/// when it was made, takings and lost revenue add up across compaction and restarts, and voids:
/// a till's own within its window, the manager's any of the day, once per key, never another
/// day's or another till's.
@Suite("Money", .serialized, .onOwnThreads)
struct MoneyTests {
    static let token = "m0ney-t0ken"
    /// 2026-11-27 12:00 in Seoul.
    static let noon: Int64 = ShopDayReportTests.unix(2026, 11, 27, 12, 0, offset: 9)

    /// A server with a manager token and a clock the test sets, its manager signed in.
    final class Shop {
        let clocked: ClockedServer
        var dir: TemporaryDirectory { clocked.dir }
        var server: ExecutableServer { clocked.server }
        var manager: LineClient { clocked.client }

        init(_ extra: [String] = [], at time: Int64 = MoneyTests.noon) throws {
            clocked = try ClockedServer(["--timezone", "Asia/Seoul"], extra, at: time,
                                        environment: ["JUICE_MANAGER_TOKEN": MoneyTests.token]) { server in
                let manager = try PairedTillTests.quiet(server)
                #expect(try manager.command("AUTH \(MoneyTests.token)") == "OK AUTH")
                return manager
            }
        }

        func at(_ time: Int64) throws { try clocked.at(time) }

        func restart(_ extra: [String]? = nil, crash: Bool = false) throws { try clocked.restart(extra, crash: crash) }

        func till(_ name: String) throws -> (LineClient, String) {
            try PairedTillTests.pair(server, manager: manager, name: name)
        }

        /// A till signed in again with its credential after a restart.
        func signIn(_ credential: String) throws -> LineClient {
            let till = try PairedTillTests.quiet(server)
            #expect(try till.command("TILL \(credential)").hasPrefix("OK TILL"))
            return till
        }

        func report() throws -> [String: Int] { values(try manager.command("REPORT")) }
    }

    /// A menu file with one price for mango-kiwi (and the rest of the standard menu's).
    static func menu(mangoKiwi price: Int, in dir: TemporaryDirectory) throws -> String {
        let path = dir.path + "/menu-\(price).json"
        let (_, printed) = try ExecutableServer.run(["--print-menu"])
        var menu = try #require(try JSONSerialization.jsonObject(with: Data(printed.utf8)) as? [String: Any])
        var juices = try #require(menu["juices"] as? [[String: Any]])
        let i = try #require(juices.firstIndex { $0["name"] as? String == "mango-kiwi" })
        #expect(juices[i]["price"] as? Int == 5_500, "the built-in price")
        juices[i]["price"] = price
        menu["juices"] = juices
        try JSONSerialization.data(withJSONObject: menu).write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test func aSaleKeepsItsPriceWhenTheMenuChanges() throws {
        let shop = try Shop()
        let (till, credential) = try shop.till("Front")
        #expect(try till.command("ORDER mango-kiwi 2 key=s1") == "OK ORDER mango-kiwi 2 seq=1 mango=6 kiwi=8 amount=11000")
        try shop.restart(["--menu", try Self.menu(mangoKiwi: 6_000, in: shop.dir)])
        let again = try shop.signIn(credential)
        #expect(try again.command("MENU PRICES").contains(" mango-kiwi=6000"))
        #expect(try again.command("ORDER mango-kiwi key=s2") == "OK ORDER mango-kiwi 1 seq=2 mango=4 kiwi=7 amount=6000")
        // The first sale's key answers with what it took then, not today's price.
        #expect(try again.command("ORDER mango-kiwi 2 key=s1") == "OK ORDER mango-kiwi 2 seq=1 mango=6 kiwi=8 amount=11000 dup")
        let report = try shop.report()
        #expect(report["takings"] == 17_000 && report["takings_mango-kiwi"] == 17_000 && report["till_1_takings"] == 17_000, "\(report)")
        // And after a compaction, which keeps the day in the snapshot.
        try shop.restart(["--menu", try Self.menu(mangoKiwi: 6_000, in: shop.dir), "--journal-max-bytes", "1024"])
        #expect(try shop.signIn(credential).command("ORDER banana").hasSuffix("amount=4000"))
        #expect(try shop.report()["takings"] == 21_000)
        shop.server.stop()
    }

    @Test func takingsAndLostRevenueAddUpAcrossCompactionAndRestarts() throws {
        let shop = try Shop(["--journal-max-bytes", "2048"])
        let (till, credential) = try shop.till("Front")
        var rng = SeededRNG(seed: 33)
        let juices = ["banana", "kiwi", "mango", "mango-kiwi", "strawberry", "pineapple", "strawberry-banana"]
        var taken = 0, voided = 0
        var current = till
        for i in 0..<60 {
            try shop.at(Self.noon + Int64(i) * 120)
            let reply = try current.command("ORDER \(juices[Int(rng.next() % 7)]) \(1 + rng.next() % 3)")
            if reply.hasPrefix("OK ORDER") {
                taken += values(reply)["amount"] ?? -1_000_000
                // Every fifth sale is voided at once, by the till that made it.
                if i % 5 == 0 {
                    let void = try current.command("VOID \(values(reply)["seq"]!) wrong-juice")
                    #expect(void.hasPrefix("OK VOID") && values(void)["amount"] == values(reply)["amount"], "\(void)")
                    voided += values(void)["amount"] ?? 0
                }
            } else {
                #expect(reply.hasPrefix("ERR OUT_OF_STOCK"), "\(reply)")
            }
            if i % 20 == 19 {
                #expect(try shop.manager.command("RESTOCK strawberry 40").hasPrefix("OK RESTOCK"))
                try shop.restart(crash: i == 39)
                current = try shop.signIn(credential)
            }
        }
        let report = try shop.report()
        #expect(report["takings"] == taken - voided, "\(report)")
        #expect(report["voided_amount"] == voided)
        let lost = try Self.lostRevenueBySums(shop)
        #expect(lost > 0, "some orders were refused")
        #expect(report["lost_revenue"] == lost, "\(report)")
        // The hours of the day add up to the day.
        let day = try HTTPClient.get(port: shop.server.httpPort, "/reports/day", headers: ["Authorization: Bearer \(Self.token)"]).json()
        let hours = try #require(day["hours"] as? [[String: Any]])
        #expect(hours.reduce(0) { $0 + ($1["takings"] as? Int ?? 0) } == taken - voided)
        #expect(hours.reduce(0) { $0 + ($1["lost_revenue"] as? Int ?? 0) } == lost)
        #expect(day["takings"] as? Int == taken - voided && day["lost_revenue"] as? Int == lost)
        shop.server.stop()
    }

    /// Lost revenue as the report's own parts say it: per juice, lost juices times the built-in
    /// price (no price changed in that test), which must be the day's total.
    static func lostRevenueBySums(_ shop: Shop) throws -> Int {
        let report = try shop.report()
        let prices = ["strawberry": 6_000, "banana": 4_000, "kiwi": 4_500, "pineapple": 4_500, "strawberry-banana": 5_500,
                      "mango": 5_000, "mango-kiwi": 5_500]
        var sum = 0
        for (juice, price) in prices {
            #expect(report["lost_revenue_\(juice)"] == (report["lost_\(juice)"] ?? -1) * price, "\(juice)")
            sum += (report["lost_\(juice)"] ?? 0) * price
        }
        return sum
    }

    @Test func aTillVoidsItsOwnSaleWithinItsWindowAndTheManagerAnySaleOfTheDay() throws {
        let shop = try Shop()
        let (front, _) = try shop.till("Front")
        let (back, backCredential) = try shop.till("Back")
        #expect(try front.command("ORDER mango-kiwi 2") == "OK ORDER mango-kiwi 2 seq=1 mango=6 kiwi=8 amount=11000")
        #expect(try front.command("ORDER banana") == "OK ORDER banana 1 seq=2 banana=8 amount=4000")
        #expect(try front.command("ORDER kiwi") == "OK ORDER kiwi 1 seq=3 kiwi=5 amount=4500")
        // Another till's sale: refused, nothing changes.
        #expect(try back.command("VOID 1 wrong-juice") == "ERR FORBIDDEN sale seq=1 was not made by this till: ask the manager to void it")
        // Inside the window: the fruit goes back, the event is broadcast, the amount reversed.
        // A display of its own address (the pairing left this one's anonymous share in use).
        let display = try LineClient(port: shop.server.port, from: "127.0.0.9")
        try shop.at(Self.noon + 599)
        #expect(try front.command("VOID 1 customer-left") == "OK VOID mango-kiwi 2 seq=4 mango=10 kiwi=7 sale=1 amount=11000 reason=customer-left")
        #expect(try display.nextEvent() == "EVENT STOCK seq=4 mango=10 kiwi=7")
        #expect(try front.command("VOID 1 other") == "ERR ALREADY_VOIDED sale seq=1 was voided at seq=4")
        // Past the till's ten minutes: the manager's job.
        try shop.at(Self.noon + 601)
        #expect(try front.command("VOID 2 wrong-juice") == "ERR FORBIDDEN a till voids its own sales within 10 minutes; sale seq=2 is older: ask the manager")
        #expect(try shop.manager.command("VOID 2 wrong-juice") == "OK VOID banana 1 seq=5 banana=10 sale=2 amount=4000 reason=wrong-juice")
        #expect(try shop.manager.command("VOID 99 other") == "ERR NO_SUCH_SALE no sale of today's business day has seq=99")
        #expect(try shop.manager.command("VOID 4 other") == "ERR NO_SUCH_SALE no sale of today's business day has seq=4", "a void is no sale")
        let report = try shop.report()
        #expect(report["voids"] == 2 && report["voided_mango-kiwi"] == 2 && report["voided_banana"] == 1, "\(report)")
        #expect(report["sold_mango-kiwi"] == 2, "a void is its own column, not a negative sale")
        #expect(report["takings"] == 4_500 && report["voided_amount"] == 15_000 && report["till_1_takings"] == 4_500, "\(report)")
        // Over HTTP: the manager voids the last one with the token; a stranger may not.
        let http = shop.server.httpPort
        let refused = try HTTPClient.post(port: http, "/voids", json: #"{"sale":3,"reason":"other"}"#)
        #expect(refused.status == 401, "\(refused.text)")
        let voided = try HTTPClient.post(port: http, "/voids", json: #"{"sale":3,"reason":"other"}"#,
                                         headers: ["Authorization: Bearer \(Self.token)", "Idempotency-Key: v-3"])
        #expect(voided.status == 200 && voided.text == #"{"ok":true,"juice":"kiwi","count":1,"sale":3,"reason":"other","seq":6,"stock":{"kiwi":10},"amount":4500,"dup":false}"#,
                "\(voided.text)")
        let missing = try HTTPClient.post(port: http, "/voids", json: #"{"sale":77,"reason":"other"}"#, headers: ["Authorization: Bearer \(Self.token)"])
        #expect(missing.status == 404 && missing.text.contains(#""error":"NO_SUCH_SALE""#))
        let bad = try HTTPClient.post(port: http, "/voids", json: #"{"sale":3,"reason":"because"}"#, headers: ["Authorization: Bearer \(Self.token)"])
        #expect(bad.status == 400 && bad.text.contains(#""error":"BAD_ARGUMENT""#))
        // A known till, not allowed: 403, not 401. A sale voided before: 409.
        let sale = try front.command("ORDER banana")
        #expect(sale.hasPrefix("OK ORDER banana 1 seq=7 "), "\(sale)")
        let notTheirs = try HTTPClient.post(port: http, "/voids", json: #"{"sale":7,"reason":"other"}"#, headers: ["Juice-Till: \(backCredential)"])
        #expect(notTheirs.status == 403 && notTheirs.text.contains(#""error":"FORBIDDEN""#), "\(notTheirs.text)")
        let again = try HTTPClient.post(port: http, "/voids", json: #"{"sale":1,"reason":"other"}"#, headers: ["Authorization: Bearer \(Self.token)"])
        #expect(again.status == 409 && again.text.contains(#""error":"ALREADY_VOIDED""#), "\(again.text)")
        shop.server.stop()
    }

    @Test func aKeyedVoidIsAppliedOnceAndTheVoidedSalesKeySaysSo() throws {
        let shop = try Shop()
        let (till, credential) = try shop.till("Front")
        #expect(try till.command("ORDER mango-kiwi 2 key=sale-1") == "OK ORDER mango-kiwi 2 seq=1 mango=6 kiwi=8 amount=11000")
        let first = try till.command("VOID 1 wrong-juice key=void-1")
        #expect(first == "OK VOID mango-kiwi 2 seq=2 mango=10 kiwi=10 sale=1 amount=11000 reason=wrong-juice")
        #expect(try till.command("VOID 1 wrong-juice key=void-1") == first + " dup")
        #expect(try till.command("VOID 1 other key=void-1").hasPrefix("ERR KEY_REUSED key 'void-1' was used for VOID 1 wrong-juice"))
        // The sale's own key, sent again: the sale as it was, and that it was voided.
        let voidedSale = "OK ORDER mango-kiwi 2 seq=1 mango=6 kiwi=8 amount=11000 voided=2 dup"
        #expect(try till.command("ORDER mango-kiwi 2 key=sale-1") == voidedSale)
        // The same across a crash and a compaction.
        try shop.restart(["--journal-max-bytes", "1024"], crash: true)
        let again = try shop.signIn(credential)
        #expect(try again.command("VOID 1 wrong-juice key=void-1") == first + " dup")
        #expect(try again.command("ORDER mango-kiwi 2 key=sale-1") == voidedSale)
        #expect(try again.command("STOCK") == "OK STOCK seq=2 strawberry=10 banana=10 pineapple=10 kiwi=10 mango=10")
        try shop.restart()
        #expect(try shop.signIn(credential).command("ORDER mango-kiwi 2 key=sale-1") == voidedSale)
        #expect(try shop.report()["voids"] == 1)
        shop.server.stop()
    }

    /// A clock set back does not make an old sale young again for its till.
    @Test func aTillsWindowCountsBothWays() throws {
        let shop = try Shop()
        let (till, _) = try shop.till("Front")
        #expect(try till.command("ORDER banana") == "OK ORDER banana 1 seq=1 banana=8 amount=4000")
        try shop.at(Self.noon - 3_600)
        #expect(try till.command("VOID 1 other").hasPrefix("ERR FORBIDDEN a till voids its own sales within 10 minutes"))
        try shop.at(Self.noon - 30)
        #expect(try till.command("VOID 1 other").hasPrefix("OK VOID banana 1 seq=2"))
        shop.server.stop()
    }

    /// Amounts on disk are minor units of the currency they were taken in: a menu in another
    /// currency is refused at start, unless the manager accepts the change.
    @Test func aMenuInAnotherCurrencyNeedsTheManagersYes() throws {
        let shop = try Shop()
        let (till, _) = try shop.till("Front")
        #expect(try till.command("ORDER banana").hasSuffix("amount=4000"))
        shop.server.stop()
        let path = shop.dir.path + "/usd.json"
        let (_, printed) = try ExecutableServer.run(["--print-menu"])
        try printed.replacingOccurrences(of: "\"KRW\"", with: "\"USD\"").write(toFile: path, atomically: true, encoding: .utf8)
        let (status, output) = try ExecutableServer.run(["--data", shop.dir.path + "/data", "--port", "0", "--http-port", "0", "--menu", path])
        #expect(status != 0 && output.contains("currency (USD) is not the one the sales") && output.contains("(KRW)"), "\(output)")
        try shop.restart(["--menu", path, "--accept-menu-change"])
        #expect(try shop.report()["currency"] == nil && (try shop.manager.command("REPORT")).contains(" currency=USD "))
        shop.server.stop()
    }

    @Test func aSaleOfAnotherBusinessDayCannotBeVoided() throws {
        let shop = try Shop()
        let (till, credential) = try shop.till("Front")
        #expect(try till.command("ORDER banana") == "OK ORDER banana 1 seq=1 banana=8 amount=4000")
        // The next morning (the business day starts at 04:00), and across a restart.
        try shop.at(Self.noon + 20 * 3600)
        #expect(try shop.manager.command("VOID 1 other") == "ERR NO_SUCH_SALE no sale of today's business day has seq=1")
        try shop.restart(["--journal-max-bytes", "1024"])
        #expect(try shop.manager.command("VOID 1 other") == "ERR NO_SUCH_SALE no sale of today's business day has seq=1")
        #expect(try shop.signIn(credential).command("VOID 1 other") == "ERR NO_SUCH_SALE no sale of today's business day has seq=1")
        shop.server.stop()
    }

    @Test func aVoidNeedsATillOrTheManagerOnATokenServer() throws {
        let shop = try Shop()
        let (till, _) = try shop.till("Front")
        #expect(try till.command("ORDER banana").hasPrefix("OK ORDER"))
        let stranger = try PairedTillTests.quiet(shop.server)
        #expect(try stranger.command("VOID 1 other").hasPrefix("ERR FORBIDDEN VOID needs a paired till"))
        #expect(try till.command("VOID 1 nonsense").hasPrefix("ERR BAD_ARGUMENT usage: VOID <sale seq> <reason>"))
        #expect(try till.command("VOID 0 other").hasPrefix("ERR BAD_ARGUMENT"))
        #expect(try till.command("VOID x other").hasPrefix("ERR BAD_ARGUMENT"))
        shop.server.stop()
    }
}

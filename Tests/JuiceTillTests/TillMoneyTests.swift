import Foundation
import Testing
import JuiceScreen
import JuiceClient
import JuiceCore
import JuiceTill

/// The till and money (issue 33): prices on the menu and the total before the tap, the amount
/// after it, this till's takings since it started, and `u`, which voids the last sale.
@Suite(.serialized, .onOwnThreads) struct TillMoneyTests {
    static let won = Currency(code: "KRW")!
    static let prices = Prices(currency: won, byJuice: ["kiwi": 4500, "mango-kiwi": 5500])

    /// Full screen in tmux, on a server with the built-in (KRW) menu and a paired till: the menu
    /// shows prices, `7x` says what one costs before the count, the sale says its amount, the
    /// till's takings add it; `u`, then `w`, voids it (the stock is back, the takings less), the
    /// server counts the void, and `u` again has nothing to undo.
    @Test(.requires(.tmux), .timeLimit(.minutes(3)))
    func theTillShowsMoneyAndUndoesItsLastSale() async throws {
        try OutsideTool.tmux.require()
        let shop = try await ShopWithPairedTill("juice-till-money")
        let server = shop.server
        defer { server.stop() }
        let pane = try TmuxSession(shop.tillCommand(id: "money1", token: ["-u", "JUICE_MANAGER_TOKEN"]))
        defer { pane.kill() }
        let row = { pane.screen.split(separator: "\n").first { $0.hasPrefix(" 7  mango-kiwi") }.map(String.init) ?? "" }
        #expect(await settles { row().contains("₩5,500") && row().hasSuffix(" 5") }, "screen:\n\(pane.screen)")

        pane.type("7x")
        #expect(await settles { pane.screen.contains("mango-kiwi ₩5,500 each · 7x… how many?") }, "screen:\n\(pane.screen)")
        pane.type("2")
        #expect(await settles { pane.screen.contains("made mango-kiwi 2 seq=1 kiwi=8 mango=6 · ₩11,000") }, "screen:\n\(pane.screen)")
        #expect(await settles { pane.screen.contains("this till since it started: ₩11,000 from 1 sale") }, "screen:\n\(pane.screen)")

        pane.type("u")
        #expect(await settles { pane.screen.contains("undo sale 1 (mango-kiwi 2, ₩11,000)? w wrong juice") }, "screen:\n\(pane.screen)")
        pane.type("w")
        #expect(await settles { pane.screen.contains("voided sale 1 mango-kiwi 2 seq=2 kiwi=10 mango=10 · -₩11,000") },
                "screen:\n\(pane.screen)")
        #expect(await settles { row().hasSuffix(" 5") && pane.screen.contains("₩0 from 1 sale, 1 voided") }, "screen:\n\(pane.screen)")
        let manager = try server.client()
        defer { manager.close() }
        #expect(manager.ask("AUTH \(ShopWithPairedTill.token)").hasPrefix("OK"))
        let report = manager.ask("REPORT")
        #expect(report.contains(" voids=1") && report.contains(" takings=0 "), "\(report)")

        pane.type("u")
        #expect(await settles { pane.screen.contains("nothing to undo") }, "screen:\n\(pane.screen)")
        pane.type("q")
        #expect(await settles { !pane.screen.contains("juice-till") }, "the till did not quit:\n\(pane.screen)")
    }

    /// Piped, a made sale's line ends with its amount as money; a menu without prices leaves it out.
    @Test(.timeLimit(.minutes(2)))
    func pipedSalesEndWithTheirAmount() async throws {
        let work = temporaryDirectory("juice-till-piped-money")
        defer { removeTemporary(work) }
        let process = try await pipedTill("mango-kiwi 2\nkiwi\n", tillID: "money2", in: work)
        defer { process.stop() }
        #expect(process.output == "made mango-kiwi 2 seq=1 kiwi=8 mango=6 · ₩11,000\nmade kiwi 1 seq=2 kiwi=5 · ₩4,500\n",
                "\(process.output) \(process.errors)")
        let help = try Executables.run(TillTests.till, ["--help"])
        #expect(help.output.contains("u undoes the last sale") && help.output.contains("· ₩11,000"), "\(help.output)")
    }

    @Test func undoKeysAskTheReasonAndAnyOtherKeyKeepsTheSale() {
        var input = TillInput()
        #expect(input.key(UInt8(ascii: "u"), now: 0) == [.undo])
        input.askUndo(sale: 5, what: "sale 5 (mango-kiwi 2, ₩11,000)")
        #expect(input.hint == "undo sale 5 (mango-kiwi 2, ₩11,000)? w wrong juice · c customer left · o other")
        #expect(input.key(27, now: 1) == [.redraw] && input.hint == nil)
        input.askUndo(sale: 5, what: "sale 5")
        #expect(input.key(UInt8(ascii: "7"), now: 2) == [.redraw] && input.mode == .idle, "a juice key does not void")
        for (key, reason) in [("w", VoidReason.wrongJuice), ("C", .customerLeft), ("o", .other)] {
            input.askUndo(sale: 5, what: "sale 5")
            #expect(input.key(UInt8(ascii: Unicode.Scalar(key)!), now: 3) == [.void(sale: 5, reason: reason)])
        }
    }

    @Test func takingsAndTheUndoWindow() {
        var takings = TillTakings()
        #expect(takings.line(nil) == nil, "no prices, no takings")
        takings.sold(11_000)
        takings.sold(4500)
        takings.voided(11_000)
        #expect(takings.line(Self.won) == "this till since it started: ₩4,500 from 2 sales, 1 voided")
        let sale = LastSale(seq: 5, juice: "mango-kiwi", count: 2, amount: 11_000, at: 100)
        #expect(LastSale.refusal(sale, now: 100 + 599) == nil)
        #expect(LastSale.refusal(sale, now: 100 + 600)?.contains("older than 10 minutes: only the manager") == true)
        #expect(LastSale.refusal(nil, now: 0)?.hasPrefix("nothing to undo") == true)
        #expect(sale.described(Self.won) == "sale 5 (mango-kiwi 2, ₩11,000)" && sale.described(nil) == "sale 5 (mango-kiwi 2)")
    }

    @Test func linesAndScreenShowMoney() {
        #expect(TillLines.result(.made(seq: 5, stock: ["mango": 6, "kiwi": 8], amount: 11_000), juice: "mango-kiwi", count: 2,
                                 currency: Self.won) == "made mango-kiwi 2 seq=5 kiwi=8 mango=6 · ₩11,000")
        #expect(TillLines.result(.made(seq: 5, stock: ["kiwi": 8], amount: nil), juice: "kiwi", count: 1) == "made kiwi 1 seq=5 kiwi=8")
        let voided = VoidResult(seq: 7, sale: 5, juice: "mango-kiwi", count: 2, amount: 11_000, reason: .other, stock: ["mango": 8, "kiwi": 9])
        #expect(TillLines.voided(voided, currency: Self.won) == "voided sale 5 mango-kiwi 2 seq=7 kiwi=9 mango=8 · -₩11,000")
        #expect(TillLines.quote("mango-kiwi", prices: Self.prices) == "mango-kiwi ₩5,500")
        #expect(TillLines.quote("mango-kiwi", count: 3, prices: Self.prices) == "mango-kiwi 3 ₩16,500")
        #expect(TillLines.quote("mango-kiwi", prices: .none) == nil)

        var status = TillStatus()
        status.online = true
        status.prices = Self.prices
        status.takings.sold(5500)
        status.hint = "7… orders one in 0.8 s"
        status.quote = "mango-kiwi ₩5,500"
        #expect(status.line == "mango-kiwi ₩5,500 · 7… orders one in 0.8 s")
        status.hint = nil
        status.voiding = 1
        #expect(status.line == "undoing the last sale…")
        let screen = TillScreen.render(TillScreenTests.shop(["strawberry": 5, "banana": 4, "kiwi": 1, "pineapple": 0, "mango": 3]),
                                       status: status, size: TerminalSize(columns: 60, rows: 20), language: .english, color: false)
        #expect(screen.contains { $0.hasPrefix(" 7  mango-kiwi") && $0.contains("₩5,500") && $0.hasSuffix(" 1") }, "\(screen)")
        #expect(screen.contains { $0.hasPrefix(" 1  strawberry") && $0.hasSuffix("sold out") }, "no price: the column is empty")
        #expect(screen.contains("this till since it started: ₩5,500 from 1 sale"), "\(screen)")
        #expect(screen.contains { $0.hasPrefix("u undo the last sale") }, "\(screen)")
        #expect(screen.allSatisfy { DisplayWidth.columns(of: $0) <= 60 })
    }
}

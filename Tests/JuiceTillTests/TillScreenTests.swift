import Testing
import JuiceScreen
import JuiceClient
import JuiceCore
import JuiceTill

/// The till's screen and piped lines, without a terminal.
@Suite(.onOwnThreads) struct TillScreenTests {
    static let menuLine = "OK MENU strawberry=strawberry:16 banana=banana:2 kiwi=kiwi:3 pineapple=pineapple:2 strawberry-banana=strawberry:10+banana:1 mango=mango:3 mango-kiwi=mango:2+kiwi:1"

    static func shop(_ stock: [String: Int]) -> ShopState {
        let menu = WireReader.menu(line: menuLine)!
        let aliases = MenuAliases(juice: ["mango-kiwi": ["망키쥬스"]])
        return ShopState(menu: menu, aliases: aliases, fruits: ["strawberry", "banana", "kiwi", "pineapple", "mango"],
                         stock: stock, seq: 9)
    }

    @Test func menuRowsSayHowManyMoreAndSoldOut() {
        var status = TillStatus()
        status.online = true
        status.lastResult = "made mango 1 seq=9 mango=3"
        let screen = TillScreen.render(Self.shop(["strawberry": 5, "banana": 4, "kiwi": 1, "pineapple": 0, "mango": 3]),
                                       status: status, size: TerminalSize(columns: 60, rows: 16), language: .korean, color: false)
        #expect(screen.count == 16)
        #expect(screen.contains { $0.hasPrefix(" 1  strawberry") && $0.hasSuffix("sold out") })
        #expect(screen.contains { $0.hasPrefix(" 2  banana") && $0.hasSuffix(" 2") })
        #expect(screen.contains { $0.hasPrefix(" 7  mango-kiwi (망키쥬스)") && $0.hasSuffix(" 1") })
        #expect(screen.last == "made mango 1 seq=9 mango=3")
        #expect(screen.allSatisfy { DisplayWidth.columns(of: $0) <= 60 })
    }

    @Test func statusLineSaysWhatWaits() {
        var status = TillStatus()
        status.waiting = 2
        #expect(status.line == "offline: 2 orders waiting")
        status.online = true
        status.waiting = 0
        status.lastResult = "made banana 1 seq=3 banana=8"
        #expect(status.line == "made banana 1 seq=3 banana=8")
        status.shortFruit = "banana"
        #expect(status.line == "made banana 1 seq=3 banana=8 · r: restock banana")
        status.online = false
        status.notice = "not sold: no menu yet"
        #expect(status.line == "not sold: no menu yet", "a key that did nothing says so, offline too")
        status.hint = "restock which fruit? ki"
        #expect(status.line == "restock which fruit? ki")
    }

    @Test func withoutAMenuTheScreenSaysNothingCanBeSold() {
        var status = TillStatus()
        status.serverAddress = "127.0.0.1:7878"
        let screen = TillScreen.render(nil, status: status, size: TerminalSize(columns: 120, rows: 10), language: .english, color: false)
        #expect(screen.contains { $0.hasPrefix("no menu yet: the server at 127.0.0.1:7878 has not answered") }, "\(screen)")
        #expect(screen.contains { $0.contains("1-9 order one (after 0.8 s, or Enter)") }, "\(screen)")
    }

    @Test func pipedLines() {
        #expect(TillLines.order("mango-kiwi 2")! == ("mango-kiwi", 2))
        #expect(TillLines.order("망키쥬스")! == ("망키쥬스", 1))
        #expect(TillLines.order("banana 0") == nil)
        #expect(TillLines.order("banana 2 3") == nil)
        #expect(TillLines.result(.outOfStock(needs: ["strawberry": 20], has: ["strawberry": 10]), juice: "strawberry-banana", count: 2)
                == "out-of-stock strawberry-banana 2 needs strawberry=20 has strawberry=10")
    }
}

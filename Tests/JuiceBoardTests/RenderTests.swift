import Foundation
import Testing
@testable import JuiceBoard
import JuiceScreen

/// Whole-screen expectations: every line, exactly.
@Suite(.onOwnThreads) struct RenderTests {
    let plain = RenderOptions(language: .english, color: false, timeZone: utc)
    let korean = RenderOptions(language: .korean, color: false, timeZone: utc)

    /// The board of the default menu with `values` in stock (strawberry sold out, mango low),
    /// on a terminal of `columns` x `rows`.
    func render(_ values: [Int] = [0, 9, 10, 8, 2], columns: Int, rows: Int, _ options: RenderOptions) -> [String] {
        BoardRenderer.render(renderState(values), size: TerminalSize(columns: columns, rows: rows), options: options)
    }

    /// The default board (strawberry sold out; mango below the 3 its thirstiest recipe needs),
    /// every line exactly, and none wider than the terminal.
    @Test(arguments: WholeScreen.cases)
    func wholeScreen(_ expected: WholeScreen) {
        let screen = render(columns: expected.columns, rows: expected.rows, RenderOptions(language: expected.language, color: false, timeZone: utc))
        #expect(screen == expected.lines)
        for line in screen {
            #expect(DisplayWidth.columns(of: line) <= expected.columns, "too wide: \(line)")
        }
    }

    @Test func koreanNamesAlignByDisplayWidth() {
        let screen = render(columns: 50, rows: 19, korean)
        // Every number ends in the same display column: margin 1 + name 26 + gap 1 + number 5
        // (the longest label, "strawberry-banana 딸바쥬스", is 26 columns: Hangul counts 2).
        for line in screen[3...7] + screen[10...16] {
            let prefix = line.prefix { !$0.isNumber } + line.drop { !$0.isNumber }.prefix { $0.isNumber }
            #expect(DisplayWidth.columns(of: String(prefix)) == 33, "misaligned: \(line)")
        }
    }

    @Test func veryFewRowsDropHeadingsThenSayWhatIsHidden() {
        let state = renderState([0, 9, 10, 8, 2])
        let size = { (rows: Int) in TerminalSize(columns: 40, rows: rows) }
        // Compact: headers but no title and no blank lines (14 rows of body).
        let compact = BoardRenderer.render(state, size: size(15), options: plain)
        #expect(compact.first == " FRUITS            stock")
        #expect(compact[6] == " JUICES         can make")
        #expect(compact.last == " connected seq 7 12:34:56") // the short status form at 40 columns
        // Bare rows, then a "+N more" line.
        let five = BoardRenderer.render(state, size: size(5), options: plain)
        #expect(five == [
            " strawberry            0 SOLD OUT",
            " banana                9 " + bar(10),
            " pineapple            10 " + bar(11),
            " +9 more",
            " connected seq 7 12:34:56",
        ])
        #expect(BoardRenderer.render(state, size: size(1), options: plain) == [" connected seq 7 12:34:56"])
        #expect(BoardRenderer.render(state, size: size(0), options: plain) == [])
    }

    @Test func beforeTheFirstSnapshotAndWhileReconnecting() {
        var state = BoardState()
        state.serverAddress = "127.0.0.1:7878"
        #expect(BoardRenderer.render(state, size: TerminalSize(columns: 60, rows: 4), options: plain) == [
            " JUICE BOARD",
            "",
            " waiting for stock from 127.0.0.1:7878…",
            " connecting  127.0.0.1:7878  seq -  last change -",
        ])
        var stale = renderState([0, 9, 10, 8, 2])
        stale.connection = .reconnecting(attempt: 3)
        #expect(BoardRenderer.render(stale, size: TerminalSize(columns: 70, rows: 24), options: plain).last
                == " reconnecting (try 3)  127.0.0.1:7878  seq 7  last change 12:34:56")
    }

    @Test func coloursMarkLowSoldOutAndUnavailable() {
        let colour = RenderOptions(language: .english, color: true, timeZone: utc)
        let screen = render(columns: 60, rows: 24, colour)
        let esc = "\u{1B}["
        #expect(screen[3] == " strawberry        " + esc + "1;31m    0" + esc + "0m " + esc + "1;31mSOLD OUT" + esc + "0m")
        #expect(screen[7] == " mango             " + esc + "33m    2" + esc + "0m " + esc + "33m" + bar(6) + esc + "0m" + esc + "33m low" + esc + "0m")
        #expect(screen[4] == " banana                9 " + esc + "32m" + bar(28) + esc + "0m")
        #expect(screen[14].hasSuffix(esc + "2;31munavailable" + esc + "0m"))
        // Colour never changes what is shown: stripped, it is the plain screen.
        let stripped = screen.map(ScreenDiff.stripEscapes)
        #expect(stripped == render(columns: 60, rows: 24, plain))
    }

    @Test func barsScaleToTheLargestStock() {
        let screen = render([1000, 500, 1, 0, 250], columns: 60, rows: 24, plain)
        #expect(screen[3] == " strawberry         1000 " + bar(31))
        #expect(screen[4] == " banana              500 " + bar(16))
        #expect(screen[5] == " pineapple             1 " + bar(1) + " low") // any stock shows at least one cell
        #expect(screen[6] == " kiwi                  0 SOLD OUT")
        #expect(screen[7] == " mango               250 " + bar(8))
    }

    @Test func controlCharactersFromTheServerNeverReachTheTerminal() {
        var state = renderState([1, 1, 1, 1, 1])
        state.aliases.fruit["kiwi"] = ["\u{1B}[2J키위"]
        let screen = BoardRenderer.render(state, size: TerminalSize(columns: 60, rows: 24), options: korean)
        #expect(!screen.joined().contains("\u{1B}"))
    }

    @Test func everyLineFitsEveryWidth() {
        let state = renderState([0, 9, 10, 8, 2])
        for columns in [1, 5, 10, 20, 30, 45, 80, 200] {
            for options in [plain, korean] {
                let screen = BoardRenderer.render(state, size: TerminalSize(columns: columns, rows: 10), options: options)
                #expect(screen.count == 10)
                for line in screen {
                    #expect(DisplayWidth.columns(of: line) <= columns, "\(columns) columns: \(line)")
                }
            }
        }
    }
}

@Suite(.onOwnThreads) struct DisplayWidthTests {
    @Test func hangulIsTwoColumns() {
        #expect(DisplayWidth.columns(of: "kiwi") == 4)
        #expect(DisplayWidth.columns(of: "키위") == 4)
        #expect(DisplayWidth.columns(of: "망키쥬스") == 8)
        #expect(DisplayWidth.columns(of: "e\u{301}") == 1) // combining accent
        #expect(DisplayWidth.columns(of: "█…") == 2)
    }

    @Test func truncateAndPadByColumns() {
        #expect(DisplayWidth.truncate("banana 바나나", to: 11) == "banana 바…")
        #expect(DisplayWidth.padRight("banana 바나나", to: 11) == "banana 바… ")
        #expect(DisplayWidth.truncate("kiwi", to: 4) == "kiwi")
        #expect(DisplayWidth.truncate("kiwi", to: 3) == "ki…")
        #expect(DisplayWidth.truncate("kiwi", to: 0) == "")
        #expect(DisplayWidth.padLeft("42", to: 5) == "   42")
    }
}

import Foundation
import Testing
@testable import JuiceBoard
import JuiceScreen

/// Whole-screen expectations: every line, exactly.
@Suite(.onOwnThreads) struct RenderTests {
    let plain = RenderOptions(language: .english, color: false, timeZone: utc)
    let korean = RenderOptions(language: .korean, color: false, timeZone: utc)

    func bar(_ n: Int) -> String { String(repeating: "█", count: n) }

    /// The board of the default menu with `values` in stock (strawberry sold out, mango low),
    /// on a terminal of `columns` x `rows`.
    func render(_ values: [Int] = [0, 9, 10, 8, 2], columns: Int, rows: Int, _ options: RenderOptions) -> [String] {
        BoardRenderer.render(renderState(values), size: TerminalSize(columns: columns, rows: rows), options: options)
    }

    /// A whole screen of `rows`: `body`, blank lines below it, the status line last.
    func fullScreen(_ body: [String], rows: Int, status: String) -> [String] {
        body + Array(repeating: "", count: rows - 1 - body.count) + [status]
    }

    @Test func wideTerminalEnglish() {
        // strawberry sold out; mango below the 3 its thirstiest recipe needs.
        let screen = render(columns: 60, rows: 24, plain)
        let expected = fullScreen([
            " JUICE BOARD",
            "",
            " FRUITS            stock",
            " strawberry            0 SOLD OUT",
            " banana                9 " + bar(28),
            " pineapple            10 " + bar(31),
            " kiwi                  8 " + bar(25),
            " mango                 2 " + bar(6) + " low",
            "",
            " JUICES         can make",
            " strawberry            0 unavailable",
            " banana                4",
            " kiwi                  2",
            " pineapple             5",
            " strawberry-banana     0 unavailable",
            " mango                 0 unavailable",
            " mango-kiwi            1",
        ], rows: 24, status: " connected  127.0.0.1:7878  seq 7  last change 12:34:56")
        #expect(screen == expected)
    }

    @Test func koreanNamesAlignByDisplayWidth() {
        let screen = render(columns: 50, rows: 19, korean)
        // The longest label, "strawberry-banana 딸바쥬스", is 26 columns (Hangul counts 2).
        let expected = [
            " JUICE BOARD",
            "",
            " FRUITS                     stock",
            " strawberry 딸기                0 SOLD OUT",
            " banana 바나나                  9 " + bar(11),
            " pineapple 파인애플            10 " + bar(12),
            " kiwi 키위                      8 " + bar(10),
            " mango 망고                     2 " + bar(2) + " low",
            "",
            " JUICES                  can make",
            " strawberry 딸기쥬스            0 unavailable",
            " banana 바나나쥬스              4",
            " kiwi 키위쥬스                  2",
            " pineapple 파인애플쥬스         5",
            " strawberry-banana 딸바쥬스     0 unavailable",
            " mango 망고쥬스                 0 unavailable",
            " mango-kiwi 망키쥬스            1",
            "",
            " connected 127.0.0.1:7878 seq 7 at 12:34:56",
        ]
        #expect(screen == expected)
        // Every number ends in the same display column: margin 1 + name 26 + gap 1 + number 5.
        for line in screen[3...7] + screen[10...16] {
            let prefix = line.prefix { !$0.isNumber } + line.drop { !$0.isNumber }.prefix { $0.isNumber }
            #expect(DisplayWidth.columns(of: String(prefix)) == 33, "misaligned: \(line)")
            #expect(DisplayWidth.columns(of: line) <= 50, "too wide: \(line)")
        }
    }

    @Test func narrowTerminalCutsNamesNotNumbers() {
        let screen = render(columns: 30, rows: 24, plain)
        let expected = fullScreen([
            " JUICE BOARD",
            "",
            " FRUITS     stock",
            " strawberry     0 SOLD OUT",
            " banana         9 " + bar(7),
            " pineapple     10 " + bar(8),
            " kiwi           8 " + bar(6),
            " mango          2 " + bar(2) + " low",
            "",
            " JUICES  can make",
            " strawberry     0 unavailable",
            " banana         4",
            " kiwi           2",
            " pineapple      5",
            " strawberr…     0 unavailable",
            " mango          0 unavailable",
            " mango-kiwi     1",
        ], rows: 24, status: " connected seq 7 12:34:56")
        #expect(screen == expected)
    }

    @Test func narrowKoreanCutsInsideWideCharactersCleanly() {
        let screen = render(columns: 34, rows: 13, korean)
        // Names get 14 columns; a Hangul syllable that would straddle the edge is dropped
        // and the gap padded, so the numbers stay in one column.
        let expected = [
            " strawberry 딸…     0 SOLD OUT",
            " banana 바나나      9 " + bar(7),
            " pineapple 파…     10 " + bar(8),
            " kiwi 키위          8 " + bar(6),
            " mango 망고         2 " + bar(2) + " low",
            " strawberry 딸…     0 unavailable",
            " banana 바나나…     4",
            " kiwi 키위쥬스      2",
            " pineapple 파…      5",
            " strawberry-ba…     0 unavailable",
            " mango 망고쥬스     0 unavailable",
            " mango-kiwi 망…     1",
            " connected seq 7 12:34:56",
        ]
        #expect(screen == expected)
        for line in screen {
            #expect(DisplayWidth.columns(of: line) <= 34, "too wide: \(line)")
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

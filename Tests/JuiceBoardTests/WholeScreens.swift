import JuiceScreen
import Testing

/// A bar of `n` cells.
func bar(_ n: Int) -> String { String(repeating: "█", count: n) }

/// A whole screen of the default board on a terminal of `columns` x `rows`, line for line.
struct WholeScreen: CustomTestStringConvertible, Sendable {
    let testDescription: String
    let columns: Int, rows: Int
    let language: Language
    let lines: [String]

    /// A screen of `rows`: `body`, blank lines below it, the status line last.
    init(_ testDescription: String, columns: Int, rows: Int, _ language: Language, _ body: [String], status: String) {
        self.init(testDescription, columns: columns, rows: rows, language, body + Array(repeating: "", count: rows - 1 - body.count) + [status])
    }

    init(_ testDescription: String, columns: Int, rows: Int, _ language: Language, _ lines: [String]) {
        self.testDescription = testDescription
        self.columns = columns
        self.rows = rows
        self.language = language
        self.lines = lines
    }

    static let cases = [
        WholeScreen("wide terminal, English", columns: 60, rows: 24, .english, [
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
        ], status: " connected  127.0.0.1:7878  seq 7  last change 12:34:56"),
        WholeScreen("Korean names align by display width", columns: 50, rows: 19, .korean, [
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
        ]),
        WholeScreen("a narrow terminal cuts names, not numbers", columns: 30, rows: 24, .english, [
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
        ], status: " connected seq 7 12:34:56"),
        // Names get 14 columns; a Hangul syllable that would straddle the edge is dropped and
        // the gap padded, so the numbers stay in one column.
        WholeScreen("narrow Korean cuts inside wide characters cleanly", columns: 34, rows: 13, .korean, [
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
        ]),
    ]
}

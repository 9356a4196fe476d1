import Foundation
import JuiceCore
import JuiceScreen

public struct RenderOptions: Equatable, Sendable {
    public var language: Language
    /// Emit SGR colour escapes (off in tests that compare plain text, and with NO_COLOR).
    public var color: Bool
    /// For the "last change" clock; tests pin it so the output does not depend on the machine.
    public var timeZone: TimeZone

    public init(language: Language = .english, color: Bool = false, timeZone: TimeZone = .current) {
        self.language = language
        self.color = color
        self.timeZone = timeZone
    }
}

/// Turns the board state into screen lines: a pure function of (state, size, options), so every
/// layout decision is testable without a terminal. Always returns exactly `size.rows` lines,
/// none wider than `size.columns` display columns; the status line is the last row.
public enum BoardRenderer {
    /// Bars never get narrower than this while there is room to shrink the names instead.
    static let preferredBarColumns = 8
    static let lowTag = " low"
    static let soldOutTag = "SOLD OUT"
    static let unavailableTag = "unavailable"

    public static func render(_ state: BoardState, size: TerminalSize, options: RenderOptions) -> [String] {
        styledLines(state, size: size, options: options).map { $0.rendered(color: options.color) }
    }

    public static func styledLines(_ state: BoardState, size: TerminalSize, options: RenderOptions) -> [StyledLine] {
        let width = max(0, size.columns)
        let rows = max(0, size.rows)
        guard rows > 0 else { return [] }
        let status = statusLine(state, width: width, options: options)
        let body = bodyLines(state, width: width, rows: rows - 1, options: options)
        var screen = body
        screen += Array(repeating: StyledLine(), count: max(0, rows - 1 - body.count))
        screen.append(status)
        return screen.map { $0.truncated(to: width) }
    }

    // MARK: - Body

    private struct Row {
        var label: String
        var number: Int
    }

    private static func label(_ name: String, aliases: [String]?, options: RenderOptions) -> String {
        let shown = Aliases.preferred(aliases, for: name, language: options.language)
        return (shown.map { "\(name) \($0)" } ?? name).sanitizedForTerminal
    }

    private static func bodyLines(_ state: BoardState, width: Int, rows: Int, options: RenderOptions) -> [StyledLine] {
        guard rows > 0 else { return [] }
        let title = StyledLine(" JUICE BOARD", .bold)
        guard state.hasSnapshot else {
            let waiting = StyledLine(" waiting for stock from \(state.serverAddress.sanitizedForTerminal)…", .dim)
            return rows >= 3 ? [title, StyledLine(), waiting] : [waiting]
        }

        let fruits = state.fruits.map {
            Row(label: label($0, aliases: state.aliases.fruit[$0], options: options), number: state.count(of: $0))
        }
        let juices = (state.menu?.juices ?? []).map {
            Row(label: label($0.name, aliases: state.aliases.juice[$0.name], options: options),
                number: state.servings(of: $0))
        }

        // Column widths: numbers right-aligned, names take what they need unless the bars
        // would get squeezed, then names are cut.
        let numberColumns = max(5, (fruits + juices).map { String($0.number).count }.max() ?? 1)
        let fixed = 1 + 1 + numberColumns + 1 // margin, gap, number, gap
        let naturalName = max(6, (fruits + juices).map { DisplayWidth.columns(of: $0.label) }.max() ?? 0)
        let roomForName = width - fixed - preferredBarColumns - lowTag.count
        let nameColumns = max(1, min(naturalName, max(roomForName, 6)))
        let barColumns = max(0, width - fixed - nameColumns - lowTag.count)
        let largest = fruits.map(\.number).max() ?? 0
        let stale = state.connection != .connected

        func numbered(_ row: Row, _ style: Style) -> StyledLine {
            var line = StyledLine(" ")
            line.append(DisplayWidth.padRight(row.label, to: nameColumns) + " ", stale ? .dim : .plain)
            line.append(DisplayWidth.padLeft(String(row.number), to: numberColumns), stale ? .dim : style)
            return line
        }

        var fruitLines: [StyledLine] = []
        for (fruit, row) in zip(state.fruits, fruits) {
            if row.number <= 0 {
                var line = numbered(row, .soldOut)
                line.append(" ")
                line.append(soldOutTag, .soldOut)
                fruitLines.append(line)
                continue
            }
            let low = state.isLow(fruit)
            var line = numbered(row, low ? .warning : .plain)
            // Scaled to the largest stock; any stock at all gets at least one cell.
            let cells = largest > 0 ? max(1, (row.number * barColumns + largest / 2) / largest) : 0
            if barColumns > 0 {
                line.append(" ")
                line.append(String(repeating: "█", count: min(cells, barColumns)), stale ? .dim : (low ? .warning : .good))
            }
            if low { line.append(lowTag, .warning) }
            fruitLines.append(line)
        }

        var juiceLines: [StyledLine] = []
        for row in juices {
            if row.number <= 0 {
                var line = numbered(row, .unavailable)
                line.append(" ")
                line.append(unavailableTag, .unavailable)
                juiceLines.append(line)
            } else {
                juiceLines.append(numbered(row, .bold))
            }
        }

        let headerColumns = 1 + nameColumns + 1 + numberColumns
        let fruitHeader = header("FRUITS", "stock", columns: headerColumns)
        let juiceHeader = header("JUICES", "can make", columns: headerColumns)

        // Most to least generous layout; the first that fits the rows wins.
        let spacious = [title, StyledLine(), fruitHeader] + fruitLines + [StyledLine(), juiceHeader] + juiceLines
        if spacious.count <= rows { return spacious }
        let compact = [fruitHeader] + fruitLines + [juiceHeader] + juiceLines
        if compact.count <= rows { return compact }
        let bare = fruitLines + juiceLines
        if bare.count <= rows { return bare }
        // Not even one line per item: show what fits and say how much is hidden.
        let shown = rows - 1
        return Array(bare.prefix(shown)) + [StyledLine(" +\(bare.count - shown) more", .dim)]
    }

    /// "FRUITS ... stock" with the right word ending over the number column.
    private static func header(_ left: String, _ right: String, columns: Int) -> StyledLine {
        let gap = max(1, columns - 1 - left.count - right.count)
        return StyledLine(" " + left + String(repeating: " ", count: gap) + right, .header)
    }

    // MARK: - Status

    private static func statusLine(_ state: BoardState, width: Int, options: RenderOptions) -> StyledLine {
        let address = state.serverAddress.sanitizedForTerminal
        let seq = state.seq.map(String.init) ?? "-"
        let time = state.lastChange.map { clock($0, in: options.timeZone) } ?? "-"
        let (word, style): (String, Style)
        switch state.connection {
        case .connecting: (word, style) = ("connecting", .statusBad)
        case .connected: (word, style) = ("connected", .statusOK)
        case .reconnecting(let attempt):
            (word, style) = (attempt > 0 ? "reconnecting (try \(attempt))" : "reconnecting", .statusBad)
        }
        // Most to least detailed; narrow terminals get the short forms.
        let candidates = [
            "  \(address)  seq \(seq)  last change \(time)",
            " \(address) seq \(seq) at \(time)",
            " seq \(seq) \(time)",
        ]
        let rest = candidates.first { 1 + word.count + DisplayWidth.columns(of: $0) <= width } ?? candidates.last!
        var line = StyledLine(" ")
        line.append(word, style)
        line.append(rest)
        return line
    }

    /// HH:MM:SS of `date` in `timeZone`.
    static func clock(_ date: Date, in timeZone: TimeZone) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let parts = calendar.dateComponents([.hour, .minute, .second], from: date)
        func two(_ n: Int?) -> String { let n = n ?? 0; return n < 10 ? "0\(n)" : "\(n)" }
        return "\(two(parts.hour)):\(two(parts.minute)):\(two(parts.second))"
    }
}

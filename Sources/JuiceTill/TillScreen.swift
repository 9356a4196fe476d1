import JuiceScreen
import JuiceClient
import JuiceCore

/// What the till shows besides the shop: its own situation.
public struct TillStatus: Equatable, Sendable {
    public var tillID = ""
    public var serverAddress = ""
    public var online = false
    /// Orders sent and not yet answered (they wait through a dropped connection).
    public var waiting = 0
    /// The last result, e.g. "made mango-kiwi 2 (seq 5)".
    public var lastResult: String? = nil
    /// A key sequence or question under way (`TillInput.hint`).
    public var hint: String? = nil
    /// Why the last key did nothing (e.g. a juice key before the menu arrived); shown over the
    /// connection line until the next key, so a pressed key is never ignored silently.
    public var notice: String? = nil
    /// The fruit the last out-of-stock was short of: the result line offers `r` for it.
    public var shortFruit: String? = nil
    /// The menu's prices (`JuiceClient.prices()`): the menu shows each juice's, and a juice key
    /// its total before the tap.
    public var prices = Prices.none
    /// What the juice key being pressed will cost (`TillLines.quote`), shown before the hint.
    public var quote: String? = nil
    /// This till's own sales and voids since it started.
    public var takings = TillTakings()
    /// Voids (undo) sent and not yet answered.
    public var voiding = 0

    public init() {}

    /// The bottom line: the question being asked, else why a key did nothing, else the
    /// connection trouble, else the last result.
    public var line: String {
        if let hint { return quote.map { "\($0) · \(hint)" } ?? hint }
        if let notice { return notice }
        if !online { return waiting > 0 ? "offline: \(waiting) order\(waiting == 1 ? "" : "s") waiting" : "offline: connecting to \(serverAddress)" }
        if waiting > 0 { return "sending \(waiting) order\(waiting == 1 ? "" : "s")…" }
        if voiding > 0 { return "undoing the last sale…" }
        guard let lastResult else { return "ready" }
        return shortFruit.map { lastResult + " · r: restock \($0)" } ?? lastResult
    }
}

/// The full-screen till: the menu numbered 1-9 with how many more of each juice the stock can
/// make (sold out greyed), the keys, and the status line. Pure, on JuiceScreen's styled lines.
public enum TillScreen {
    public static func render(_ shop: ShopState?, status: TillStatus, size: TerminalSize, language: Language, color: Bool) -> [String] {
        let width = max(0, size.columns), rows = max(0, size.rows)
        guard rows > 0 else { return [] }
        var lines: [StyledLine] = []
        var title = StyledLine("juice-till", .bold)
        title.append("  \(status.tillID)  \(status.serverAddress)  ")
        title.append(status.online ? "online" : "offline", status.online ? .statusOK : .statusBad)
        lines.append(title)
        lines.append(StyledLine())
        if let shop {
            // With prices, a column of them before the count (the count stays the row's end).
            let priced = status.prices.currency != nil, priceWidth = priced ? 12 : 0
            let nameWidth = max(10, width - 16 - priceWidth)
            lines.append(StyledLine(" #  " + DisplayWidth.padRight("juice", to: nameWidth)
                                    + (priced ? DisplayWidth.padLeft("price", to: priceWidth) : "") + "  can make", .header))
            for (index, juice) in shop.menu.juices.prefix(9).enumerated() {
                var name = juice.name
                if let alias = MenuAliases.preferred(juice.aliases.isEmpty ? shop.aliases.juice[juice.name] : juice.aliases,
                                                     for: juice.name, language: language) {
                    name += " (\(alias))"
                }
                let can = shop.canMake(juice.name)
                let price = priced ? DisplayWidth.padLeft(status.prices.amount(juice.name).flatMap(status.prices.format) ?? "", to: priceWidth) : ""
                let text = " \(index + 1)  " + DisplayWidth.padRight(name.sanitizedForTerminal, to: nameWidth) + price
                    + DisplayWidth.padLeft(can == 0 ? "sold out" : String(can), to: 10)
                lines.append(StyledLine(text, can == 0 ? .dim : .plain))
            }
            if let takings = status.takings.line(status.prices.currency) {
                lines.append(StyledLine())
                lines.append(StyledLine(takings))
            }
        } else {
            // Nothing can be sold before the menu is known: the till says so rather than take
            // orders it cannot show.
            lines.append(StyledLine("no menu yet: the server at \(status.serverAddress) has not answered; nothing can be sold until it does", .dim))
        }
        lines.append(StyledLine())
        // Two lines, so that each fits 80 columns.
        lines.append(StyledLine("1-9 order one (after \(TillInput.pickWaitText) s, or Enter) · 3x2 two of juice 3", .dim))
        lines.append(StyledLine("u undo the last sale (within 10 minutes) · r restock · q quit", .dim))
        var screen = Array(lines.prefix(max(0, rows - 1)))
        screen += Array(repeating: StyledLine(), count: max(0, rows - 1 - screen.count))
        screen.append(StyledLine(status.line.sanitizedForTerminal, status.online ? .bold : .statusBad))
        return screen.map { $0.truncated(to: width).rendered(color: color) }
    }
}

/// The piped till's lines: `juice [count]` in, one result line out.
public enum TillLines {
    /// `mango-kiwi 2` → ("mango-kiwi", 2); nil for a line that is not an order. Blank is nil too.
    public static func order(_ line: String) -> (juice: String, count: Int)? {
        let words = line.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\r" })
        guard let juice = words.first, words.count <= 2 else { return nil }
        guard words.count == 2 else { return (String(juice), 1) }
        guard let count = Int(words[1]), count > 0 else { return nil }
        return (String(juice), count)
    }

    /// `made mango-kiwi 2 seq=5 kiwi=8 mango=6 · ₩11,000` (the amount only with prices, as
    /// `currency` shows it), `out-of-stock mango-kiwi 2 needs mango=12 has mango=6`.
    public static func result(_ result: OrderResult, juice: String, count: Int, currency: Currency? = nil) -> String {
        switch result {
        case .made(let seq, let stock, let amount):
            return "made \(juice) \(count) seq=\(seq)" + pairs(stock) + money(amount, currency)
        case .outOfStock(let needs, let has):
            return "out-of-stock \(juice) \(count) needs" + pairs(needs) + " has" + pairs(has)
        }
    }

    static func pairs(_ values: [String: Int]) -> String {
        values.sorted { $0.key < $1.key }.map { " \($0.key)=\($0.value)" }.joined()
    }
}

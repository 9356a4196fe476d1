import JuiceClient

/// This till's own money since it started: its sales' amounts less what it voided. Summed from
/// its own answers (each sale's `amount=`, each void's), because the day's figures per till are
/// in `REPORT`, a manager's command a till cannot read; so it is "since this till started", and
/// says so, not "today" (a restart starts it again).
public struct TillTakings: Equatable, Sendable {
    public private(set) var sales = 0
    public private(set) var voids = 0
    /// In minor units of the menu's currency.
    public private(set) var amount = 0

    public init() {}

    public mutating func sold(_ amount: Int?) {
        sales += 1
        self.amount += amount ?? 0
    }

    public mutating func voided(_ amount: Int?) {
        voids += 1
        self.amount -= amount ?? 0
    }

    /// `this till since it started: ₩16,500 from 3 sales, 1 voided`; nil without prices.
    public func line(_ currency: Currency?) -> String? {
        guard let currency else { return nil }
        let voided = voids == 0 ? "" : ", \(voids) voided"
        return "this till since it started: \(currency.format(amount)) from \(sales) sale\(sales == 1 ? "" : "s")\(voided)"
    }
}

/// The till's last sale, the one `u` undoes: a till voids its own sales within the server's
/// window (10 minutes), so the till offers it only that long, by its own clock; the server has
/// the last word (a refusal is shown as it comes).
public struct LastSale: Equatable, Sendable {
    public var seq: Int
    public var juice: String
    public var count: Int
    public var amount: Int?
    /// When it was answered (the till's monotonic clock, seconds).
    public var at: Double

    /// How long a till may void its own sale (the server's window, PROTOCOL.md "VOID").
    public static let window = 600.0

    public init(seq: Int, juice: String, count: Int, amount: Int?, at: Double) {
        self.seq = seq
        self.juice = juice
        self.count = count
        self.amount = amount
        self.at = at
    }

    public func undoable(now: Double) -> Bool { now - at < Self.window }

    /// `sale 5 (mango-kiwi 2, ₩11,000)` (no amount without prices).
    public func described(_ currency: Currency?) -> String {
        "sale \(seq) (\(juice) \(count)" + (currency.flatMap { c in amount.map { ", " + c.format($0) } } ?? "") + ")"
    }

    /// Why `u` does nothing now, or nil when the last sale can be undone.
    public static func refusal(_ last: LastSale?, now: Double) -> String? {
        guard let last else { return "nothing to undo: this till has made no sale since it started (or undid it)" }
        if last.undoable(now: now) { return nil }
        return "the last sale (seq \(last.seq)) is older than 10 minutes: only the manager can void it now"
    }
}

extension TillLines {
    /// ` · ₩11,000`: an amount as the till's lines end with it; empty without one.
    static func money(_ amount: Int?, _ currency: Currency?, sign: String = "") -> String {
        guard let amount, let currency else { return "" }
        return " · " + sign + currency.format(amount)
    }

    /// `voided sale 5 mango-kiwi 2 seq=7 kiwi=9 mango=8 · -₩11,000`.
    public static func voided(_ result: VoidResult, currency: Currency? = nil) -> String {
        "voided sale \(result.sale) \(result.juice) \(result.count) seq=\(result.seq)" + pairs(result.stock)
            + money(result.amount, currency, sign: "-")
    }

    /// What one of `juice` costs, for the line before the tap: `mango-kiwi ₩5,500`; nil without prices.
    public static func quote(_ juice: String, count: Int = 1, prices: Prices) -> String? {
        guard let amount = prices.amount(juice, count: count), let text = prices.format(amount) else { return nil }
        return "\(juice)\(count == 1 ? "" : " \(count)") \(text)"
    }
}

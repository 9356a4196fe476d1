/// The figures of one `STATS` reply, as domain values: the store's counters plus what only the
/// server knows (clients, uptime, the journal's group-commit counters).
public struct StatsValues: Sendable, Equatable {
    public var clients: Int
    public var uptimeSeconds: UInt64
    public var seq: UInt64
    public var ordersServed: UInt64
    public var ordersRefused: UInt64
    /// Juices sold, per juice of the menu (in menu order).
    public var sold: [UInt64]
    /// Lost sales per juice (juices refused for stock, counting `count`), in menu order.
    public var lost: [UInt64]
    /// Refused orders each fruit was short in, per fruit in menu order.
    public var short: [UInt64]
    /// Remembered idempotency keys.
    public var keys: Int
    /// Journal writes (each one fdatasync) and the records they carried; nil when in memory.
    public var journal: JournalCounts?

    public init(clients: Int, uptimeSeconds: UInt64, seq: UInt64, ordersServed: UInt64, ordersRefused: UInt64,
                sold: [UInt64], lost: [UInt64], short: [UInt64], keys: Int, journal: JournalCounts?) {
        self.clients = clients
        self.uptimeSeconds = uptimeSeconds
        self.seq = seq
        self.ordersServed = ordersServed
        self.ordersRefused = ordersRefused
        self.sold = sold
        self.lost = lost
        self.short = short
        self.keys = keys
        self.journal = journal
    }
}

extension Wire {
    /// `OK STATS clients=3 uptime_s=42 seq=4 ... sold_<juice>=.. lost_<juice>=.. short_<fruit>=.. durable=yes keys=1
    /// journal_syncs=.. journal_records=..`.
    /// Not a hot path (one line per STATS command), so it is built as a String.
    package static func stats(_ stats: StatsValues, menu: Menu, to out: inout [UInt8]) {
        var line = "OK STATS clients=\(stats.clients) uptime_s=\(stats.uptimeSeconds) seq=\(stats.seq)"
        line += " orders_served=\(stats.ordersServed) orders_refused=\(stats.ordersRefused)"
        for (i, juice) in menu.juices.enumerated() { line += " sold_\(juice.name)=\(stats.sold[i])" }
        for (i, juice) in menu.juices.enumerated() { line += " lost_\(juice.name)=\(stats.lost[i])" }
        for (i, fruit) in menu.fruits.enumerated() { line += " short_\(fruit.name)=\(stats.short[i])" }
        line += " durable=\(stats.journal != nil ? "yes" : "no") keys=\(stats.keys)"
        if let journal = stats.journal { line += " journal_syncs=\(journal.syncs) journal_records=\(journal.records)" }
        out.append(line)
        out.appendLineEnd()
    }
}

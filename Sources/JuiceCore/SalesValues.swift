/// Everything the manager's views (`/sales`, `/metrics`, the dashboard) show about the store, as
/// domain values read at one moment: `FruitStore.salesSnapshot()` fills it, and `SalesJSON`,
/// `StateJSON` and `Metrics` only format it. Per-juice and per-fruit lists are in menu order.
package struct SalesValues: Sendable, Equatable {
    package var menu: Menu
    package var seq: UInt64
    package var ordersServed: UInt64
    package var ordersRefused: UInt64
    /// Stock per fruit.
    package var stock: [Int]
    /// Juices sold and juices refused for stock (lost sales), per juice, counting `count`.
    package var sold: [UInt64]
    package var lost: [UInt64]
    /// Refused orders each fruit was short in, per fruit.
    package var short: [UInt64]
    /// Orders per minute since the server started: the last 60 whole minutes and the current
    /// one, oldest first (see `MinuteCounts`).
    package var perMinute: [MinuteCount]
    /// The journal's group-commit counters; nil without a data directory.
    package var journal: JournalCounts?
    /// Money since the store was created (zero without prices).
    package var money = MoneyTotals()

    package init(menu: Menu, seq: UInt64, ordersServed: UInt64, ordersRefused: UInt64, stock: [Int], sold: [UInt64],
                lost: [UInt64], short: [UInt64], perMinute: [MinuteCount], journal: JournalCounts?, money: MoneyTotals = MoneyTotals()) {
        self.money = money
        self.menu = menu
        self.seq = seq
        self.ordersServed = ordersServed
        self.ordersRefused = ordersRefused
        self.stock = stock
        self.sold = sold
        self.lost = lost
        self.short = short
        self.perMinute = perMinute
        self.journal = journal
    }
}

/// Journal writes (each one `fdatasync`) and the records they carried: counters that start at
/// zero with the journal and only grow.
public struct JournalCounts: Sendable, Equatable {
    public var syncs: UInt64 = 0
    public var records: UInt64 = 0

    public init(syncs: UInt64 = 0, records: UInt64 = 0) { (self.syncs, self.records) = (syncs, records) }
    /// Nothing written yet: where a journal's counts start.
    public static let zero = JournalCounts()
}

/// One minute of `MinuteCounts`: its start in unix seconds and the orders served and refused in it.
package struct MinuteCount: Sendable, Equatable {
    package let start: Int64
    package let served: UInt64
    package let refused: UInt64

    package init(start: Int64, served: UInt64, refused: UInt64) {
        (self.start, self.served, self.refused) = (start, served, refused)
    }
}

/// The store's money since it was created, in minor units of the menu's currency: what sales
/// took (before voids), what refusals lost, and the voids. Counters that only grow (`/metrics`).
package struct MoneyTotals: Sendable, Equatable {
    package var takings: UInt64 = 0
    package var lostRevenue: UInt64 = 0
    package var voids: UInt64 = 0
    package var voidedAmount: UInt64 = 0

    package init(takings: UInt64 = 0, lostRevenue: UInt64 = 0, voids: UInt64 = 0, voidedAmount: UInt64 = 0) {
        (self.takings, self.lostRevenue, self.voids, self.voidedAmount) = (takings, lostRevenue, voids, voidedAmount)
    }
}

import JuiceCore

/// What the store answers to one command, as values: each protocol's codec puts it into its
/// own words (`LineCodec`, `WriteAnswer`).
enum StoreOutcome {
    /// ORDER, RESTOCK, SET.
    case write(WriteOutcome)
    /// STOCK: the stock at `seq`, every fruit or only `only`.
    case stock(seq: UInt64, stock: [Int], only: Int?)
    /// STATS: the store's figures (the connection adds its own: clients, uptime).
    case stats(StoreStats)
    /// REPORT: one business day.
    case report(DayReport)
    /// SINCE: where the client's events resume.
    case since(CatchUpPlan)
}

/// Where a client's events resume, after `SINCE <after>` or a browser's `Last-Event-ID`: live
/// events go on from `current + 1`, after what `start` says to send first.
struct CatchUpPlan: Equatable {
    enum Start: Equatable {
        /// Nothing missed.
        case upToDate
        /// One event with every fruit (the history cannot reach, or the seq is another store's).
        case fullState([FruitValue])
        /// The missed changes, streamed from the history as the client's socket takes them.
        case stream(CatchUp)
    }

    let after: UInt64
    let current: UInt64
    let start: Start
}

/// A catch-up in progress: the next seq to send, and the seq the plan promised.
struct CatchUp: Sendable, Equatable {
    var next: UInt64
    var through: UInt64
}

/// The store's figures of a STATS reply.
struct StoreStats {
    let seq: UInt64
    let ordersServed: UInt64
    let ordersRefused: UInt64
    let sold: [UInt64]
    let lost: [UInt64]
    let short: [UInt64]
    let keys: Int
    let journal: JournalCounts?

    /// With what only the server knows, as `STATS` reports it.
    func values(clients: Int, uptimeSeconds: UInt64) -> StatsValues {
        StatsValues(clients: clients, uptimeSeconds: uptimeSeconds, seq: seq, ordersServed: ordersServed,
                    ordersRefused: ordersRefused, sold: sold, lost: lost, short: short, keys: keys, journal: journal)
    }
}

/// What a run of store commands leaves for its connection: the journal position its answers
/// wait for, and the changes to broadcast (after the answers are queued), in seq order.
struct RunEnd {
    let lsn: UInt64
    let events: [StockEvent]
}

/// A client's group for the per-address rules (`PeerAddress.group`), worked out from the peer
/// ("10.0.0.7:5000") once, and only when a write needs it.
struct ClientOf {
    let peer: String
    private var cached: String?

    init(peer: String) {
        self.peer = peer
    }

    var host: String {
        mutating get {
            if let cached { return cached }
            let made = PeerAddress.group(of: peer)
            cached = made
            return made
        }
    }
}

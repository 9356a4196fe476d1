import JuiceCore
import JuicePlatform
import JuiceLog

/// What the store answers to one command, as values: each protocol's codec puts it into its
/// own words (`LineCodec`, `WriteAnswer`).
package enum StoreOutcome {
    /// ORDER, RESTOCK, SET.
    case write(WriteOutcome)
    /// STOCK: the stock at `seq`, every fruit or only `only`.
    case stock(seq: UInt64, stock: [Int], only: Int?)
    /// STATS: the store's figures, as its ledger and journal have them now (the connection adds
    /// its own: clients, uptime).
    /// Boxed, as REPORT's: a ledger is large, and every outcome would be as large as its
    /// largest case (copied on each order).
    indirect case stats(StockLedger, journal: JournalCounts?)
    /// REPORT: one business day.
    indirect case report(DayReport)
    /// SINCE: where the client's events resume.
    case since(CatchUpPlan)
    /// PAIR and TILLS.
    indirect case tills(TillsOutcome)
}

/// Where a client's events resume, after `SINCE <after>` or a browser's `Last-Event-ID`: live
/// events go on from `current + 1`, after what `start` says to send first.
package struct CatchUpPlan: Equatable {
    package enum Start: Equatable {
        /// Nothing missed.
        case upToDate
        /// One event with every fruit (the history cannot reach, or the seq is another store's).
        case fullState([FruitValue])
        /// The missed changes, after+1 through current, streamed from the history as the
        /// client's socket takes them.
        case stream
    }

    package let after: UInt64
    package let current: UInt64
    package let start: Start
}

/// What a run of store commands leaves for its connection: the journal position its answers
/// wait for, and the changes to broadcast (after the answers are queued), in seq order.
package struct RunEnd {
    package let lsn: UInt64
    package let events: [StockEvent]
}

/// A client's group for the per-address rules (`PeerAddress.group`), worked out from the peer
/// ("10.0.0.7:5000") once, and only when a write needs it.
package struct ClientOf {
    package let peer: String
    package let role: ClientRole
    private var cached: String?

    /// `group`: the peer's group, where the caller keeps it (a line connection works it out once).
    package init(peer: String, role: ClientRole = .anonymous, group: String? = nil) {
        self.peer = peer
        self.role = role
        self.cached = group
    }

    /// The writer where no address is needed: a till or the manager as itself, an anonymous
    /// client as `.unknown` (its group is not worked out).
    package var writerWithoutAddress: Writer {
        switch role {
        case .till(let id): return .till(id)
        case .manager: return .manager
        case .anonymous: return .unknown
        }
    }

    /// Who its writes are recorded as, and so the scope of its keys.
    package var writer: Writer {
        mutating get {
            switch role {
            case .till(let id): return .till(id)
            case .manager: return .manager
            case .anonymous: return .anonymous(group: host)
            }
        }
    }

    /// A till the manager revoked since it signed in.
    package func isRevoked(in tills: TillRegistry) -> Bool {
        if case .till(let id) = role { return !tills.isActive(id) }
        return false
    }

    package var host: String {
        mutating get {
            if let cached { return cached }
            let made = PeerAddress.group(of: peer)
            cached = made
            return made
        }
    }
}

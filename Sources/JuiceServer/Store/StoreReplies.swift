import JuiceCore

/// What one run of store commands produced for a connection.
struct StoreReplies: Sendable {
    /// The reply lines (and, for SINCE, the catch-up events), in command order.
    var out: [UInt8]
    /// The journal position the replies reflect: they wait until it is durable.
    var gate: UInt64
    /// Changes to broadcast, in seq order.
    var events: [StockEvent] = []
    /// After a SINCE: this connection takes live events from this seq on.
    var eventsFrom: UInt64?
    /// After a SINCE whose history reaches: the events to stream, paced by the client's socket
    /// (see `FruitStore.appendHistory`). A SINCE that starts one is the last command of its run.
    var catchUp: CatchUp?
    /// After a write refused for a full key memory (`ERR BUSY`): when to try again, for HTTP's
    /// `Retry-After`.
    var retryAfterSeconds: Int?
}

/// A client's group for the per-address rules (`PeerAddress.group`), worked out from the peer ("10.0.0.7:5000")
/// once, and only when a write needs it.
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

/// A SINCE catch-up in progress: the next seq to send, and the seq the `OK SINCE` reply promised.
struct CatchUp: Sendable, Equatable {
    var next: UInt64
    var through: UInt64
}

/// Figures the store cannot know by itself, for STATS.
struct StatsContext: Sendable {
    var clients: Int
    /// When the server started (`DispatchTime` uptime nanoseconds); uptime is read only for STATS.
    var startedAt: UInt64
}

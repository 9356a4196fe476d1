import JuiceCore

/// One client: its socket, where it is in its life, its partial input line and its pending
/// output. Owned by `Server` and only touched on the loop.
final class Connection {
    /// Where a connection is in its life. Input is read only while `open`.
    enum Phase: Equatable {
        /// Reading and running commands.
        case open
        /// The peer finished sending (EOF, maybe only a half-close like `nc -q`): what it sent
        /// still runs and is answered, then it closes.
        case inputEnded
        /// No more input runs; it closes once its output is out.
        case closing
        case closed
    }

    enum Kind: Equatable {
        case line
        /// An HTTP connection until its request is answered (or becomes an event stream).
        case http
        /// A browser's event stream: it only listens.
        case eventStream
    }

    /// What the poller was last told to watch the socket for.
    struct Interest: Equatable {
        var read = true
        /// Only while output is pending that the socket refused.
        var write = false
    }

    let id: UInt64
    let fd: Int32
    let peer: String
    var phase = Phase.open
    var interest = Interest()

    var framer = LineFramer()
    var outbox = Outbox()
    /// Its pending output (replies waiting for its socket or the journal) passed the budget:
    /// none of its commands run, and nothing is read, until it drains. A client that
    /// pipelines without reading cannot grow it without bound.
    var throttled = false
    /// Input already read but not yet run, from `deferredStart` on: the rest of a read whose
    /// lines stopped at the output budget. At most one read's worth: nothing more is read
    /// until it has all run.
    var deferred: [UInt8] = []
    var deferredStart = 0
    /// A SINCE catch-up being streamed; the commands after the SINCE wait for it.
    var catchUp: CatchUp?

    /// What it speaks: the line protocol, or HTTP (one request, or an event stream).
    var kind: Kind
    /// How it takes events: `EVENT STOCK` lines, or event-stream messages.
    var eventFormat: EventFormat { kind == .eventStream ? .stream : .line }
    /// A line client gets events from the start (`EVENTS OFF` stops them); an HTTP connection
    /// only once it asked for /events, so none go out ahead of a response while it is still
    /// sending its request.
    var eventsOn: Bool
    /// Live events with a lower seq are skipped: a SINCE already sent them.
    var eventsFrom: UInt64 = 0
    /// After QUIT: the seq of the last change applied before it. Its events up to here are
    /// still owed (they may wait for the journal), and it closes only once they are out.
    var eventsOwedThrough: UInt64 = 0
    var session: SessionState
    /// Queued for the next flush pass.
    var dirty = false
    var lastInput: UInt64
    let acceptedAt: UInt64
    /// An HTTP connection's request head as it arrives (empty otherwise).
    var httpReader = HTTPRequestReader()

    init(id: UInt64, fd: Int32, peer: String, kind: Kind = .line, isManager: Bool, now: UInt64) {
        self.id = id
        self.kind = kind
        self.eventsOn = kind == .line
        self.fd = fd
        self.peer = peer
        self.session = SessionState(isManager: isManager)
        self.lastInput = now
        self.acceptedAt = now
    }

    var isClosed: Bool { phase == .closed }
    /// Closing or closed: no more of its input runs.
    var isFinishing: Bool { phase == .closing || phase == .closed }
    var hasDeferredInput: Bool { deferredStart < deferred.count }

    /// Whether the loop should read from it now.
    var wantsInput: Bool { phase == .open && !throttled && catchUp == nil && !hasDeferredInput }
}

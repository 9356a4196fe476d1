import JuiceCore

/// One client as the loop sees it: its socket, where it is in its life, its pending output and
/// how it takes events. Owned by `Running` and only touched on the loop.
///
/// What it speaks is not the loop's business: each protocol makes its own subclass (see
/// `ConnectionHandler.makeConnection`) to carry its per-connection state, and the loop reaches
/// that only through the handler. Fields are ordered so the small ones pack together: an idle
/// connection's size is the server's memory per client.
class Connection {
    /// Where a connection is in its life. Input is read only while `open`.
    enum Phase: UInt8, Equatable {
        /// Reading and running commands.
        case open
        /// The peer finished sending (EOF, maybe only a half-close like `nc -q`): what it sent
        /// still runs and is answered, then it closes.
        case inputEnded
        /// No more input runs; it closes once its output is out.
        case closing
        case closed
    }

    /// What the poller was last told to watch the socket for.
    struct Interest: Equatable {
        var read = true
        /// Only while output is pending that the socket refused.
        var write = false
    }

    let id: UInt64
    let fd: Int32
    var phase = Phase.open
    var interest = Interest()
    /// Queued for the next flush pass.
    var dirty = false
    let peer: String
    var outbox = Outbox()
    /// Where it stands in the events, once that is anything but the default (most
    /// connections never need it, so it is kept apart: see `EventCursor`).
    private var cursor: EventCursor?
    /// When it last sent something, in whole seconds of uptime (for `--idle-timeout`; 32 bits
    /// last 136 years, and every connection carries it).
    var lastInputSecond: UInt32
    /// Which of the server's listeners (and so which handler) accepted it.
    let listener: UInt8
    /// Whether it takes live events now, and in which form. Set by `FanOut` (`listen`,
    /// `setEvents`), which owns subscriptions.
    var eventsOn: Bool
    let eventFormat: EventFormat

    init(id: UInt64, fd: Int32, peer: String, listener: UInt8, events: EventFormat, eventsOn: Bool, now: UInt64) {
        self.id = id
        self.fd = fd
        self.peer = peer
        self.listener = listener
        self.eventFormat = events
        self.eventsOn = eventsOn
        self.lastInputSecond = Connection.second(now)
    }

    /// Live events with a lower seq are skipped: a catch-up already sent them.
    var eventsFrom: UInt64 {
        get { cursor?.eventsFrom ?? 0 }
        set { if cursor != nil || newValue != 0 { cursorForWrite.eventsFrom = newValue } }
    }
    /// A catch-up being streamed (SINCE, `Last-Event-ID`): it takes no live events meanwhile.
    var catchUp: CatchUp? {
        get { cursor?.catchUp }
        set { if cursor != nil || newValue != nil { cursorForWrite.catchUp = newValue } }
    }
    /// Once closing: the seq of the last change whose event it is still owed (QUIT sends what
    /// is owed); it closes only once those are out.
    var eventsOwedThrough: UInt64 {
        get { cursor?.owedThrough ?? 0 }
        set { if cursor != nil || newValue != 0 { cursorForWrite.owedThrough = newValue } }
    }
    private var cursorForWrite: EventCursor {
        if let cursor { return cursor }
        let made = EventCursor()
        cursor = made
        return made
    }

    /// Uptime nanoseconds (`DispatchTime`) as whole seconds.
    static func second(_ uptimeNanoseconds: UInt64) -> UInt32 { UInt32(truncatingIfNeeded: uptimeNanoseconds / 1_000_000_000) }

    var isClosed: Bool { phase == .closed }
    /// Closing or closed: no more of its input runs.
    var isFinishing: Bool { phase == .closing || phase == .closed }

    /// Whether the loop should read from it now. A protocol with input waiting to run narrows it.
    var wantsInput: Bool { phase == .open && catchUp == nil }
    /// A connection that only listens (an event stream) is never idle-reaped: its liveness is
    /// TCP keepalive and its writes.
    var onlyListens: Bool { false }
}

/// A connection's place in the events when it is not simply "live, from now": after a SINCE or
/// a browser's resume, and after QUIT. One reference in `Connection` instead of 33 bytes in
/// every one.
final class EventCursor {
    var eventsFrom: UInt64 = 0
    var catchUp: CatchUp?
    var owedThrough: UInt64 = 0
}

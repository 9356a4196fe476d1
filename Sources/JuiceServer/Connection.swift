import JuiceCore

/// One client: its socket, its partial input line and its pending output.
/// Owned by `Server` and only touched on the loop.
final class Connection {
    let id: UInt64
    let fd: Int32
    let peer: String
    /// Whether the poller watches for writability: only while output is pending.
    var watchingWrite = false
    /// Input is no longer watched (the connection is closing).
    var readPaused = false
    /// Its pending output (replies waiting for the socket or the journal) passed the budget:
    /// no more of its commands run, and no more input is read, until it drains. A client that
    /// pipelines without reading cannot grow it without bound.
    var throttled = false
    /// Input already read but not yet run (from `deferredStart` on): the rest of a read whose
    /// lines stopped at the output budget. At most one read's worth; nothing more is read
    /// until it has all run.
    var deferred: [UInt8] = []
    var deferredStart = 0
    /// A SINCE catch-up being streamed; its commands after the SINCE wait for it.
    var catchUp: CatchUp?
    /// The peer finished sending (EOF): close once its deferred work and output are done.
    var inputEnded = false
    /// What the poller was last told to watch this client for.
    var watchedRead = true

    var framer = LineFramer()
    var outbox = Outbox()
    var eventsOn = true
    /// Live events with a lower seq are skipped: a SINCE already sent them.
    var eventsFrom: UInt64 = 0
    var isManager: Bool
    var authFailures = 0
    /// Refused AUTH/FORBIDDEN lines logged for this connection (the log is rate-limited).
    var refusalsLogged = 0
    /// Whether the loop should read from it now.
    var wantsInput: Bool {
        !readPaused && !throttled && !closing && catchUp == nil && deferredStart >= deferred.count
    }
    /// No more input is taken; the connection closes once its output is out.
    var closing = false
    var closed = false
    /// Queued for the next flush pass.
    var dirty = false
    var lastInput: UInt64

    init(id: UInt64, fd: Int32, peer: String, isManager: Bool, now: UInt64) {
        self.id = id
        self.fd = fd
        self.peer = peer
        self.isManager = isManager
        self.lastInput = now
    }
}

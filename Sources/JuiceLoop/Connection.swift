import JuiceCore
import JuicePlatform
import JuiceLog

/// One client as the loop sees it: its socket, where it is in its life, its pending output and
/// where it stands in the events. Owned by `Running` and only touched on the loop.
///
/// What it speaks is not the loop's business: its protocol's side is its `session` (made by the
/// protocol that accepted it, typed there, with no downcast), which the loop tells of input,
/// drained output and closing. Fields are ordered so the small ones pack together: an idle
/// connection's size is the server's memory per client.
///
/// Its stored fields are internal, not `package`: the optimizer drops the run-time exclusivity
/// check of a class's stored field only when it sees every access, which it cannot for one
/// other modules may touch; the loop reads these for every line. Other modules read them
/// through the computed properties below.
package final class Connection: @unchecked Sendable {
    // @unchecked: loop-confined (the loop and the sessions it calls); Sendable only so that a
    // session may capture it in the store's `assumeIsolated` closures, which run on the loop too.
    /// Where a connection is in its life. Input is read only while `open`. Only the
    /// connection's own methods move it (`endInput`, `stopInput`, `markClosed`).
    package enum Phase: UInt8, Equatable {
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
    package struct Interest: Equatable {
        package var read = true
        /// Only while output is pending that the socket refused.
        package var write = false
    }

    package let id: UInt64
    package let socket: Socket
    private(set) var phase = Phase.open
    var interest = Interest()
    /// Queued for the next flush pass.
    var dirty = false
    /// Its place in `FanOut`'s list of listeners, or -1: it takes no live events. Only `FanOut`,
    /// which owns subscriptions, sets it.
    var subscriberSlot: Int32 = -1
    /// Which of the server's listeners (and so which protocol) accepted it: the fan-out words
    /// its events in that protocol's form.
    package let listener: UInt8
    package let peer: String
    var outbox = Outbox()
    /// Where it stands in the events, once that is anything but the default (most
    /// connections never need it, so it is kept apart: see `EventCursor`).
    private var cursor: EventCursor?
    /// When it last showed life, in whole seconds of uptime (for `--idle-timeout`; 32 bits
    /// last 136 years, and every connection carries it): bytes read from it, or bytes of its
    /// output its socket took (an event stream that is read from is not idle; one whose
    /// client stopped reading stops taking bytes once the kernel's buffers are full).
    var lastActiveSecond: UInt32
    /// Since when (whole seconds of uptime, 0: not) its peer has left output unacknowledged at
    /// every idle check, with nothing read from it meanwhile: a client that stopped reading.
    var stalledSince: UInt32 = 0
    /// Which slots it holds (`Admission`): anonymous until it signs in (`ConnectionHost.markKnown`).
    var pool = Admission.Pool.anonymous
    /// The address it is counted against (its peer's host, or the client a trusted proxy named
    /// for its latest request); nil: not counted against one.
    var countedAddress: String?
    /// Its protocol's side, set once, right after it is made (`Running.accepted`).
    var session: (any ConnectionSession)!

    package init(id: UInt64, socket: Socket, peer: String, listener: UInt8, now: UInt64) {
        self.id = id
        self.socket = socket
        self.peer = peer
        self.listener = listener
        self.lastActiveSecond = Connection.second(now)
    }

    /// The peer finished sending: what it sent still runs.
    package func endInput() {
        if phase == .open { phase = .inputEnded }
    }

    /// No more of its input runs (QUIT, a refusal that hangs up, shutdown): it closes once its
    /// output is out.
    package func stopInput() {
        if phase == .open || phase == .inputEnded { phase = .closing }
    }

    /// Its socket is closed (`Running.close`).
    package func markClosed() {
        phase = .closed
    }

    /// Live events with a lower seq are skipped: a catch-up already sent them.
    package var eventsFrom: UInt64 {
        get { cursor?.eventsFrom ?? 0 }
        set { if cursor != nil || newValue != 0 { cursorForWrite.eventsFrom = newValue } }
    }
    /// A catch-up being streamed (SINCE, `Last-Event-ID`): it takes no live events meanwhile.
    package var catchUp: CatchUp? {
        get { cursor?.catchUp }
        set { if cursor != nil || newValue != nil { cursorForWrite.catchUp = newValue } }
    }
    /// Once closing: the seq of the last change whose event it is still owed (QUIT sends what
    /// is owed); it closes only once those are out.
    package var eventsOwedThrough: UInt64 {
        get { cursor?.owedThrough ?? 0 }
        set { if cursor != nil || newValue != 0 { cursorForWrite.owedThrough = newValue } }
    }
    private var cursorForWrite: EventCursor {
        if let cursor { return cursor }
        let made = EventCursor()
        cursor = made
        return made
    }

    /// Whether it takes live events now.
    package var eventsOn: Bool { subscriberSlot >= 0 }

    /// Its descriptor, as the poller knows it.
    package var fd: Int32 { socket.fd }

    /// Uptime nanoseconds (`DispatchTime`) as whole seconds.
    package static func second(_ uptimeNanoseconds: UInt64) -> UInt32 { UInt32(truncatingIfNeeded: uptimeNanoseconds / 1_000_000_000) }

    package var isClosed: Bool { phase == .closed }
    /// Reading, not yet finishing.
    package var isOpen: Bool { phase == .open }
    /// The peer finished sending; what it sent still runs.
    package var hasInputEnded: Bool { phase == .inputEnded }
    /// Closing or closed: no more of its input runs.
    package var isFinishing: Bool { phase == .closing || phase == .closed }

    /// Whether the loop should read from it now: open, not catching up, and its protocol wants
    /// more (not while input it read waits to run, nor while an answer is on its way).
    package var wantsInput: Bool { phase == .open && cursor?.catchUp == nil && session.wantsInput }
    /// It signed in (the manager, a paired till): never closed as idle, and holds a slot that
    /// strangers cannot take.
    package var isKnown: Bool { pool == .known }
    /// Admitted while the server was full, until it signs in or its grace ends.
    package var onProbation: Bool { pool == .probation }
    /// Its output not yet taken by its socket (or still held for the journal).
    package var pendingOutputBytes: Int { outbox.pendingBytes }
    package var hasPendingOutput: Bool { !outbox.isEmpty }
    /// Its pending output while more of its input may run; nil once none may for now (it is
    /// finishing, or a catch-up streams). A session's pacing asks it before every line: one
    /// call from its module, not three (each a retain and a release of the connection).
    package var pendingOutputIfInputMayRun: Int? {
        // The fields themselves, not `isFinishing` and `catchUp`: asked before every line.
        guard phase == .open || phase == .inputEnded, cursor?.catchUp == nil else { return nil }
        return outbox.pendingBytes
    }
}

/// A connection's place in the events when it is not simply "live, from now": after a SINCE or
/// a browser's resume, and after QUIT. One reference in `Connection` instead of 33 bytes in
/// every one.
final class EventCursor {
    var eventsFrom: UInt64 = 0
    var catchUp: CatchUp?
    var owedThrough: UInt64 = 0
}

import Dispatch
import Glibc
import JuiceCore
import Synchronization

/// One client: its socket, its sources, its partial input line and its pending output.
/// Owned by `Server` and only touched on the loop.
final class Connection {
    let id: UInt64
    let fd: Int32
    let peer: String
    let readSource: DispatchSourceRead
    /// Created the first time a send would block, then resumed only while output is pending
    /// (an always-armed write source would fire on every loop turn).
    var writeSource: DispatchSourceWrite?
    var writeArmed = false
    var readSuspended = false
    let closer: FDCloser

    var framer = LineFramer()
    var outbox = Outbox()
    var eventsOn = true
    /// Live events with a lower seq are skipped: a SINCE already sent them.
    var eventsFrom: UInt64 = 0
    var isManager: Bool
    var authFailures = 0
    /// No more input is taken; the connection closes once its output is out.
    var closing = false
    var closed = false
    /// Queued for the next flush pass.
    var dirty = false
    var lastInput: UInt64

    init(id: UInt64, fd: Int32, peer: String, readSource: DispatchSourceRead, closer: FDCloser, isManager: Bool, now: UInt64) {
        self.id = id
        self.fd = fd
        self.peer = peer
        self.readSource = readSource
        self.closer = closer
        self.isManager = isManager
        self.lastInput = now
    }
}

/// Closes a client's fd only after every DispatchSource on it has run its cancel handler:
/// closing earlier could let the fd number be reused while a source still watches it.
final class FDCloser: Sendable {
    private let fd: Int32
    private let sources = Atomic<Int>(1)

    init(fd: Int32) {
        self.fd = fd
    }

    func addSource() {
        sources.wrappingAdd(1, ordering: .relaxed)
    }

    func sourceCancelled() {
        if sources.wrappingSubtract(1, ordering: .acquiringAndReleasing).newValue == 0 {
            close(fd)
        }
    }
}

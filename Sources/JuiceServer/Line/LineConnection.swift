import JuiceCore

/// A line-protocol client: the loop's `Connection` plus what the line protocol keeps for it:
/// its partial input line, its session (manager or not, AUTH failures), and the input it read
/// but has not run yet because its output passed the budget.
final class LineConnection: Connection {
    // Small fields first: they fill the end of the loop's part (an idle client's size is the
    // server's memory per client).
    /// Its pending output (replies waiting for its socket or the journal) passed the budget:
    /// none of its commands run, and nothing is read, until it drains. A client that
    /// pipelines without reading cannot grow it without bound.
    var throttled = false
    var session: SessionState
    /// Input waiting to run (see `deferred`), kept apart: a connection rarely has any.
    private var backlog: Backlog?
    var framer = LineFramer()
    /// Input already read but not yet run, from `deferredStart` on: the rest of a read whose
    /// lines stopped at the output budget or at the end of its turn (`FairTurn`). At most one
    /// read's worth: nothing more is read until it has all run.
    var deferred: [UInt8] {
        get { backlog?.bytes ?? [] }
        set { backlog = newValue.isEmpty ? nil : Backlog(newValue) }
    }
    var deferredStart: Int {
        get { backlog?.start ?? 0 }
        set { backlog?.start = newValue }
    }

    private final class Backlog {
        let bytes: [UInt8]
        var start = 0
        init(_ bytes: [UInt8]) { self.bytes = bytes }
    }

    init(id: UInt64, fd: Int32, peer: String, listener: UInt8, isManager: Bool, now: UInt64) {
        session = SessionState(isManager: isManager)
        // A line client takes events from the start (`EVENTS OFF` stops them).
        super.init(id: id, fd: fd, peer: peer, listener: listener, events: .line, eventsOn: true, now: now)
    }

    var hasDeferredInput: Bool { deferredStart < deferred.count }

    override var wantsInput: Bool { super.wantsInput && !throttled && !hasDeferredInput }
}

import Dispatch
import JuiceCore
import JuicePlatform
import JuiceLog

/// Writes queued output in passes. A pass writes at most `slice` connections, then lets the
/// loop take new input before the rest: a fan-out to a thousand displays takes milliseconds of
/// sends, and an order that arrives meanwhile adds its event to the displays not yet written,
/// so they get both events in one send. Same order, fewer system calls.
///
/// A connection is also queued here for its next turn (`FairTurn`): the pass then tells it
/// its output drained, and it goes on.
package final class FlushPasses {
    // Loop-confined, not Sendable: every method runs on `queue` (the loop).
    private let queue: DispatchQueue
    private let output: OutputPath
    /// Connections with output queued, or a turn owed, since the last pass.
    private var dirty: [Connection] = []
    private var passScheduled = false
    /// Told after a pass wrote to a connection: its deferred work may go on.
    package var onWritten: (Connection) -> Void = { _ in }

    package static let slice = 128

    package init(queue: DispatchQueue, output: OutputPath) {
        self.queue = queue
        self.output = output
    }

    /// Queues a connection for the next pass.
    package func markDirty(_ conn: Connection) {
        guard !conn.dirty else { return }
        conn.dirty = true
        dirty.append(conn)
        schedule()
    }

    private func schedule() {
        guard !passScheduled, !dirty.isEmpty else { return }
        passScheduled = true
        // Later on the same queue: reads already queued are handled first. The passes are the
        // loop's (`LoopBound` checks it), held until the pass runs: one hop to `pass`.
        LoopBound(self, on: queue).async { $0.pass() }
    }

    private func pass() {
        passScheduled = false
        let count = min(dirty.count, FlushPasses.slice)
        let slice = dirty.prefix(count)
        dirty.removeFirst(count)
        for conn in slice {
            conn.dirty = false
            if !conn.isClosed && output.flush(conn) { onWritten(conn) }
        }
        schedule()
    }
}

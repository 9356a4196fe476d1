import JuiceCore
import JuicePlatform
import JuiceLog
/// Nothing the server sends may reflect a change a crash could still lose. Replies wait in
/// their connection's outbox as "held" (tagged with the journal position, LSN, that must be on
/// disk first), and events wait here, until the journal reports it is durable that far.
/// In memory (no journal) everything is durable at once: every position waited for is 0.
///
/// The journal tells the gate itself (the gate is `GroupCommit`'s `durabilityListener`, wired by
/// `Server.start`), and the gate tells whoever waits: the released connections (written at once),
/// the fan-out, then a draining server.
package final class DurabilityGate: DurabilityListener {
    /// The journal is on disk up to here: output that waits for a position up to it may go out
    /// now. (Internal: see `Connection` on exclusivity checks; `OutputPath` reads it directly.)
    private(set) var durableLSN: UInt64
    /// Connections holding output that waits for the journal, to release it when it is durable.
    private var withHeldOutput: [UInt64: Connection] = [:]
    /// Events waiting for the journal before they may be broadcast, in seq order.
    private var pendingEvents: [StockEvent] = []
    /// Scratch for `durable(upTo:)`: the connections with nothing held any more. (Removing
    /// them while iterating the dictionary would copy it on every journal sync.)
    private var releasedAll: [UInt64] = []
    /// Scratch for `durable(upTo:)`: the connections with output released.
    private var releasedSome: [Connection] = []

    /// Told of each connection whose held output was released.
    package var released: (Connection) -> Void = { _ in }
    /// Where events go once they may (set by `Running`, which makes the fan-out after the gate).
    /// Weak: the fan-out reaches the gate through the output path.
    package weak var fanOut: FanOut?
    /// Told after each release, only while something waits for one (a draining server may be
    /// done: `Server.shutdown` sets it); nil otherwise.
    package var afterDurable: (() -> Void)?

    package init(durableLSN: UInt64) {
        self.durableLSN = durableLSN
    }

    /// Remembers a connection whose outbox holds output, to release it later.
    package func hold(_ conn: Connection) {
        withHeldOutput[conn.id] = conn
    }

    package func forget(_ conn: Connection) {
        withHeldOutput.removeValue(forKey: conn.id)
    }

    /// Broadcasts changes now if they are durable and none waits before them; else they wait,
    /// in order, for `durable(upTo:)`.
    package func publish(_ events: [StockEvent]) {
        guard let last = events.last else { return }
        if last.lsn > durableLSN || !pendingEvents.isEmpty {
            pendingEvents.append(contentsOf: events)
        } else {
            fanOut?.broadcast(events)
        }
    }

    /// The journal is on disk up to `lsn`: moves held output to ready (`released` is told of
    /// each connection that has some to send), then broadcasts the events that may go now.
    /// Replies are released before events, as they were produced.
    package func durable(upTo lsn: UInt64) {
        defer { afterDurable?() }
        durableLSN = lsn
        for conn in withHeldOutput.values {
            if conn.outbox.release(durable: lsn) { releasedSome.append(conn) }
            if !conn.outbox.hasHeld { releasedAll.append(conn.id) }
        }
        for id in releasedAll { withHeldOutput.removeValue(forKey: id) }
        releasedAll.removeAll(keepingCapacity: true)
        // Told only now: what they do next (write, run more input, hold new output) must not
        // change the table under the loop above.
        for conn in releasedSome { released(conn) }
        releasedSome.removeAll(keepingCapacity: true)
        var count = 0
        while count < pendingEvents.count && pendingEvents[count].lsn <= lsn { count += 1 }
        guard count > 0 else { return }
        let events = Array(pendingEvents[..<count])
        pendingEvents.removeFirst(count)
        fanOut?.broadcast(events)
    }
}

import Dispatch
import JuiceCore

/// Broadcasts each change to every display, and writes queued output in passes. A publisher
/// never waits on a subscriber: a display whose socket is full only queues, and the output
/// path drops it once what its socket refused passes the cap.
///
/// A pass writes at most `flushSlice` connections, then lets the loop take new input before
/// the rest. A fan-out to a thousand displays takes milliseconds of sends; an order that
/// arrives meanwhile adds its event to the displays not yet written, and they get both events
/// in one send. Same order, fewer system calls.
final class FanOut: @unchecked Sendable {
    // @unchecked: loop-confined; every method runs on `queue` (the loop).
    private let queue: DispatchQueue
    let output: OutputPath
    let store: FruitStore
    private let menu: Menu
    /// Connections with output queued since the last pass.
    private var dirty: [Connection] = []
    private var passScheduled = false
    /// Told after a pass wrote to a connection: its deferred work may go on.
    var onWritten: (Connection) -> Void = { _ in }
    /// The seq of the last change broadcast: a SINCE catch-up runs on to here before the
    /// display takes live events again.
    private(set) var lastBroadcastSeq: UInt64

    static let flushSlice = 128

    init(queue: DispatchQueue, output: OutputPath, store: FruitStore, seq: UInt64) {
        self.queue = queue
        self.output = output
        self.store = store
        self.menu = store.menu
        self.lastBroadcastSeq = seq
    }

    /// Sends a batch of (durable) changes to every client listening for them.
    func broadcast(_ events: [StockEvent], to connections: some Sequence<Connection>) {
        guard let last = events.last else { return }
        lastBroadcastSeq = last.seq
        // A display in a SINCE catch-up is skipped: its catch-up streams these from the
        // history after the lines it still owes, in order.
        // The event-stream form is encoded once per event, and only if a browser listens.
        var streamForm: [[UInt8]]?
        // A closing connection gets only the events still owed to it (after QUIT).
        for conn in connections where conn.eventsOn && conn.catchUp == nil && !conn.isClosed {
            for (i, event) in events.enumerated() where event.seq >= conn.eventsFrom
                && (!conn.isFinishing || event.seq <= conn.eventsOwedThrough) {
                let bytes: [UInt8]
                switch conn.eventFormat {
                case .line:
                    bytes = event.line
                case .stream:
                    if streamForm == nil { streamForm = events.map { $0.bytes(.stream, menu: menu) } }
                    bytes = streamForm![i]
                }
                if output.enqueue(conn, bytes) { markDirty(conn) }
                if conn.isClosed { break }
            }
        }
        schedulePass()
    }

    // MARK: Subscriptions: who takes which events

    /// Turns live events on for `conn` from seq `from` on, after the catch-up `catchUp` if any
    /// (a browser's event stream once its start is sent).
    func listen(_ conn: Connection, from: UInt64, catchUp: CatchUp?) {
        conn.eventsOn = true
        resume(conn, from: from, catchUp: catchUp)
    }

    /// `EVENTS ON` / `EVENTS OFF`.
    func setEvents(_ conn: Connection, on: Bool) {
        conn.eventsOn = on
    }

    /// After a SINCE: live events from `from` on, once `catchUp` (if any) is streamed.
    func resume(_ conn: Connection, from: UInt64?, catchUp: CatchUp?) {
        if let from { conn.eventsFrom = from }
        if let catchUp { conn.catchUp = catchUp }
    }

    /// It is closing (QUIT) but is still owed the events of every change applied so far, its
    /// own included: they go out before it closes (`isOwed`).
    func oweEventsSoFar(_ conn: Connection) {
        guard conn.eventsOn else { return }
        conn.eventsOwedThrough = store.assumeIsolated { $0.ledger.seq }
    }

    /// Whether events it is owed have not been broadcast yet (the journal still holds them).
    func isOwed(_ conn: Connection) -> Bool { lastBroadcastSeq < conn.eventsOwedThrough }

    /// A catch-up stopped for good (the connection is closing).
    func dropCatchUp(_ conn: Connection) { conn.catchUp = nil }

    /// Queues a connection for the next pass.
    func markDirty(_ conn: Connection) {
        guard !conn.dirty else { return }
        conn.dirty = true
        dirty.append(conn)
        schedulePass()
    }

    private func schedulePass() {
        guard !passScheduled, !dirty.isEmpty else { return }
        passScheduled = true
        // Later on the same queue: reads already queued are handled first.
        queue.async { [weak self] in self?.pass() }
    }

    private func pass() {
        passScheduled = false
        let count = min(dirty.count, FanOut.flushSlice)
        let slice = dirty.prefix(count)
        dirty.removeFirst(count)
        for conn in slice {
            conn.dirty = false
            if !conn.isClosed && output.flush(conn) { onWritten(conn) }
        }
        schedulePass()
    }
}

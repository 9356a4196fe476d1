import JuiceCore
import JuiceDomain
import JuiceLoop

/// One connection as a protocol's session sees it, and the only way a session reaches the loop:
/// run store commands and answer once the journal has them (`run`, `answer`), follow changes
/// (`listen`, `resume`, `owe`), pace itself by the loop's fair turn and its output budget
/// (`turn`, `hasPendingOutput`, `yieldTurn`, `pumpCatchUp`; `PacedInput` asks the connection itself), and end (`stopReading`, `finish`,
/// `close`). The loop's parts themselves (output path, fan-out, flush passes, catch-up pump,
/// host) are internal to JuiceServices: a protocol cannot reach past this.
///
/// A class, made once per connection: a session passes it around and closures capture it, and
/// a struct holding the server's services would be copied (a retain for each of their
/// references) every time.
package final class SessionLink {
    // unowned(unsafe): the link lives in its connection's session (and, for one request, in
    // HTTPProtocol.routing), so the connection outlives it; a checked unowned reference cost a
    // retain per use on the hot path.
    // Internal, not private: `PacedInput` (this module) asks the connection itself, one call
    // instead of two on every line.
    unowned(unsafe) let conn: Connection
    private let loop: LoopServices

    package init(_ conn: Connection, _ loop: LoopServices) {
        self.conn = conn
        self.loop = loop
    }

    // MARK: Who and where

    /// "10.0.0.7:5000", as accepted.
    package var peer: String { conn.peer }
    /// The connection's id, unique for the server's life.
    package var id: UInt64 { conn.id }
    /// It will read no more and closes once its output is out.
    package var isFinishing: Bool { conn.isFinishing }
    package var isClosed: Bool { conn.isClosed }
    /// Reading, not yet finishing.
    package var isOpen: Bool { conn.isOpen }
    /// A known client (the manager, a paired till): the reserve is its, no idle timeout.
    package var isKnown: Bool { conn.isKnown }
    /// Admitted while the server was full, until it signs in or its grace ends.
    package var onProbation: Bool { conn.onProbation }

    // MARK: Answers

    /// Runs store commands in order, each outcome worded into `reply` as it is decided; the
    /// reply then waits for the journal position the run reached, and the changes it made are
    /// broadcast after it (`answer`).
    package func run(_ commands: [StoreCommand], role: ClientRole = .anonymous, group: String? = nil,
                     into reply: inout Reply, word: (StoreOutcome, inout [UInt8]) -> Void) {
        let peer = conn.peer
        // nonisolated(unsafe): we are on the loop, which the store runs on (`assumeIsolated`
        // checks it): the closure never leaves this thread.
        nonisolated(unsafe) let word = word
        let end = loop.store.assumeIsolated { store in
            store.run(commands, peer: peer, role: role, group: group, into: &reply.bytes, answer: word)
        }
        reply.lsn = max(reply.lsn, end.lsn)
        if reply.events.isEmpty { reply.events = end.events } else { reply.events.append(contentsOf: end.events) }
    }

    /// Sends what `reply` holds once the journal has everything it waits for, then broadcasts
    /// its changes (after: a client sees its reply before the event of its own change), and
    /// empties it.
    package func answer(_ reply: inout Reply) {
        if !reply.bytes.isEmpty { loop.output.send(conn, reply.bytes, after: reply.lsn) }
        // Straight to the gate, not through `publish` and the host: fewer hops on every durable answer.
        if !reply.events.isEmpty { loop.gate.publish(reply.events) }
        reply.bytes.removeAll(keepingCapacity: true)
        reply.events = []
        reply.lsn = 0
    }

    /// Changes a write made, to broadcast to every client that listens (through the durability
    /// gate): after the write's own answer was sent.
    package func publish(_ events: [StockEvent]) {
        if !events.isEmpty { loop.gate.publish(events) }
    }

    /// Bytes that wait for the journal up to `lsn` (0: none), as `answer` sends them.
    package func send(_ bytes: [UInt8], after lsn: UInt64 = 0) {
        loop.output.send(conn, bytes, after: lsn)
    }

    /// Bytes for the next flush pass rather than a direct write (an event stream's keepalive).
    package func queue(_ bytes: [UInt8]) {
        if loop.output.enqueue(conn, bytes) { loop.passes.markDirty(conn) }
    }

    // MARK: Pacing

    /// This read's (or drain's) share of the loop: so many lines or requests, so much output,
    /// one computed report.
    package func turn(limit: Int = FairTurn.maxLines) -> FairTurn { FairTurn(limit: limit, work: loop.store.work) }
    package var hasPendingOutput: Bool { conn.hasPendingOutput }
    /// Its turn is over: the others get theirs, then the next flush pass gives it its next one
    /// (`ConnectionSession.drained`).
    package func yieldTurn() { loop.passes.markDirty(conn) }

    // MARK: Changes

    /// Live events on or off (`EVENTS ON|OFF`).
    package func events(on: Bool) { loop.fanOut.setEvents(conn, on: on) }
    /// Live events from seq `from` on, after the catch-up if any (a browser's event stream).
    package func listen(from: UInt64, catchUp: CatchUp?) { loop.fanOut.listen(conn, from: from, catchUp: catchUp) }
    /// After a SINCE: live events from `from` on, once the catch-up (if any) is streamed.
    package func resume(from: UInt64, catchUp: CatchUp?) { loop.fanOut.resume(conn, from: from, catchUp: catchUp) }
    /// Closing, it is still owed the events of every change applied so far.
    package func oweEvents() {
        loop.fanOut.oweEvents(conn, through: loop.store.assumeIsolated { $0.ledger.seq })
    }
    /// A catch-up is streaming: what follows waits for it.
    package var inCatchUp: Bool { conn.catchUp != nil }
    /// Sends the next piece of its catch-up, as its socket takes it; true once it is all out.
    package func pumpCatchUp() -> Bool { loop.catchUp.pump(conn) }
    package func dropCatchUp() { loop.catchUp.drop(conn) }

    // MARK: Ending

    /// Nothing more is read; it closes once what it is owed is out (`finish`).
    package func stopReading() { conn.stopInput() }
    /// It is done: close it once its output and the events it is owed are out.
    package func finish() { loop.host.finish(conn) }
    /// Close it now, with a reason for the log.
    package func close(reason: String?) { loop.host.close(conn, reason: reason) }

    // MARK: Who it is

    /// It proved who it is (the manager's token, a paired till's credential): a known client.
    package func markKnown() { loop.host.markKnown(conn) }
    /// An HTTP request from `client` (the peer, or who a trusted proxy names): false when that
    /// client is over its share, and the request is refused.
    package func countRequest(from client: String) -> Bool { loop.host.countRequest(conn, from: client) }
    /// False once shutdown began.
    package var serverIsAccepting: Bool { loop.host.isAccepting }
    /// Clients connected, all protocols together.
    package var clientCount: Int { loop.host.clientCount }

    // MARK: Tills

    /// Whether it may speak for `till`: it does already, or the till has room for one more.
    package func tillHasRoom(_ till: TillID) -> Bool { loop.tills.hasRoom(for: conn, as: till) }
    /// It speaks for `till` from now on.
    package func signedIn(as till: TillID) { loop.tills.signedIn(conn, as: till) }
    /// It no longer speaks for `till` (it signed in as another, or it closed).
    package func left(_ till: TillID) { loop.tills.closed(conn, till: till) }
    /// The manager revoked `till`: every other connection of it is closed once what it is owed
    /// is out (the answers to writes already applied; anything after is refused, `REVOKED`).
    package func closeConnections(of till: TillID) {
        for other in loop.tills.takeConnections(of: till) where other !== conn && !other.isFinishing {
            other.stopInput()
            loop.host.finish(other)
        }
    }
}

/// What a run of commands leaves for its connection: the reply bytes, the journal position they
/// wait for, and the changes to broadcast after them (`SessionLink.answer`).
package struct Reply {
    package var bytes: [UInt8] = []
    package var lsn: UInt64 = 0
    package var events: [StockEvent] = []

    package init(bytes: [UInt8] = []) {
        self.bytes = bytes
    }
}

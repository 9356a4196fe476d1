import JuiceCore
import JuicePlatform
import JuiceLog

/// Who takes which events (a list of the connections that listen), and the broadcast of each
/// change to them. A publisher never waits on
/// a subscriber: a display whose socket is full only queues, and the output path drops it once
/// what its socket refused passes the cap.
package final class FanOut {
    // Loop-confined: every method runs on the loop.
    private let output: OutputPath
    private let passes: FlushPasses
    /// A listener's protocol, which words each event its own way (`ServedProtocol.appendEvent`).
    /// Unowned: a protocol holds the loop's parts, this fan-out among them.
    struct Wording {
        unowned let served: any ServedProtocol
    }
    /// Each listener's protocol, by listener index (`Connection.listener`), asked directly (no
    /// closure around it). (Internal stored fields here and below: see `Connection` on
    /// exclusivity checks.)
    var wordings: [Wording] = []
    /// The connections that take live events: a broadcast visits these, not every client (most
    /// clients, tills among them, turn events off).
    private var subscribers: [Connection] = []
    /// The seq of the last change broadcast: a catch-up runs on to here before the display
    /// takes live events again.
    package var lastBroadcastSeq: UInt64 { lastSeq }
    private var lastSeq: UInt64

    package init(output: OutputPath, passes: FlushPasses, seq: UInt64) {
        self.output = output
        self.passes = passes
        lastSeq = seq
    }

    /// Sends a batch of (durable) changes to every client listening for them, each change
    /// worded once per protocol that has a listener.
    package func broadcast(_ events: [StockEvent]) {
        guard let last = events.last else { return }
        lastSeq = last.seq
        // Made when the first listener is met: most orders reach none (tills turn events off).
        var worded: [[[UInt8]]?] = []
        // A display in a catch-up is skipped: its catch-up streams these from the history after
        // what it still owes, in order. A closing one gets only the events still owed to it.
        // A copy: one that passes its output cap is closed, and leaves the list, meanwhile.
        for conn in subscribers where conn.catchUp == nil && !conn.isClosed {
            let listener = Int(conn.listener)
            if worded.isEmpty { worded = Array(repeating: nil, count: wordings.count) }
            if worded[listener] == nil {
                let served = wordings[listener].served
                var lines: [[UInt8]] = []
                lines.reserveCapacity(events.count)
                for event in events {
                    var bytes: [UInt8] = []
                    served.appendEvent(seq: event.seq, event.touched, to: &bytes)
                    lines.append(bytes)
                }
                worded[listener] = lines
            }
            for (i, event) in events.enumerated() where event.seq >= conn.eventsFrom
                && (!conn.isFinishing || event.seq <= conn.eventsOwedThrough) {
                if output.enqueue(conn, worded[listener]![i]) { passes.markDirty(conn) }
                if conn.isClosed { break }
            }
        }
    }

    /// Turns live events on for `conn` from seq `from` on, after the catch-up `catchUp` if any
    /// (a browser's event stream once its start is sent).
    package func listen(_ conn: Connection, from: UInt64, catchUp: CatchUp?) {
        setEvents(conn, on: true)
        resume(conn, from: from, catchUp: catchUp)
    }

    /// Live events on or off for `conn` (the line protocol's `EVENTS ON` / `EVENTS OFF`); on at
    /// accept for a protocol whose clients listen from the start; off once it is closed.
    package func setEvents(_ conn: Connection, on: Bool) {
        guard on != conn.eventsOn else { return }
        if on {
            conn.subscriberSlot = Int32(subscribers.count)
            subscribers.append(conn)
        } else {
            // The last one takes its place.
            let slot = Int(conn.subscriberSlot)
            let last = subscribers.removeLast()
            if slot < subscribers.count {
                subscribers[slot] = last
                last.subscriberSlot = Int32(slot)
            }
            conn.subscriberSlot = -1
        }
    }

    /// After a SINCE: live events from `from` on, once `catchUp` (if any) is streamed.
    package func resume(_ conn: Connection, from: UInt64, catchUp: CatchUp?) {
        conn.eventsFrom = from
        if let catchUp { conn.catchUp = catchUp }
    }

    /// It is closing (QUIT) but is still owed the events of every change applied so far
    /// (through `seq`), its own included: they go out before it closes (`isOwed`).
    /// Only live events are owed: one before `eventsFrom` went out in its SINCE's catch-up (or
    /// was skipped for its full state), and its broadcast passes this connection by, so owing it
    /// would hold the close for a broadcast that never comes back to it.
    package func oweEvents(_ conn: Connection, through seq: UInt64) {
        guard conn.eventsOn, seq >= conn.eventsFrom else { return }
        conn.eventsOwedThrough = seq
    }

    /// Whether events it is owed have not been broadcast yet (the journal still holds them).
    package func isOwed(_ conn: Connection) -> Bool { lastSeq < conn.eventsOwedThrough }

    /// The protocol of `listener`, which words its events (a catch-up words its changes with it).
    package func wording(for listener: UInt8) -> any ServedProtocol {
        wordings[Int(listener)].served
    }
}

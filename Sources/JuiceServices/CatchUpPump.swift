import JuiceCore
import JuiceDomain
import JuicePlatform
import JuiceLog
import JuiceLoop
/// Streams a connection's catch-up (after `SINCE`, or a browser's `Last-Event-ID`) from the
/// store's history, one piece at a time, each once the last one is mostly out: the work is
/// paced by what the client's socket takes, never built whole.
package final class CatchUpPump {
    // Loop-confined: every method runs on the loop.
    /// A piece is about this many bytes.
    package static let chunk = 32 * 1024
    /// Pieces per wake-up before others get their turn: one piece is more than a turn's worth
    /// of output (`FairTurn.maxOutputBytes`). Formatting 16 pieces (512 KiB) in one go, as
    /// before, kept every other client waiting for each display that caught up.
    package static let piecesPerTurn = 1
    /// Changes asked of the history per piece: more than a piece's bytes hold (an event line is
    /// at least ~30 bytes).
    package static let maxChanges: UInt64 = 2048

    private let store: FruitStore
    private let fanOut: FanOut
    private let output: OutputPath
    private let passes: FlushPasses

    package init(store: FruitStore, fanOut: FanOut, output: OutputPath, passes: FlushPasses) {
        self.store = store
        self.fanOut = fanOut
        self.output = output
        self.passes = passes
    }

    /// Sends pieces while the client keeps up (its pending output under a piece), at most
    /// `piecesPerTurn` per wake-up, after which the next flush pass comes back for more.
    /// Returns true once the catch-up is over.
    package func pump(_ conn: Connection) -> Bool {
        var pieces = 0
        while conn.catchUp != nil && !conn.isClosed {
            guard conn.pendingOutputBytes < CatchUpPump.chunk else { return false }
            guard pieces < CatchUpPump.piecesPerTurn else {
                passes.markDirty(conn)
                return false
            }
            pieces += 1
            sendNext(conn)
        }
        return conn.catchUp == nil
    }

    /// A catch-up stopped for good (the connection is closing).
    package func drop(_ conn: Connection) { conn.catchUp = nil }

    /// Sends the next piece. Once it reaches the seq the catch-up started at and every change
    /// broadcast since (a client gets no live events while it catches up), live events take
    /// over from the next seq: no gap, no duplicate.
    private func sendNext(_ conn: Connection) {
        guard var catchUp = conn.catchUp else { return }
        let limit = conn.eventsOn ? max(catchUp.through, fanOut.lastBroadcastSeq) : catchUp.through
        let served = fanOut.wording(for: conn.listener)
        // The store copies out a piece's worth of changes (values, at most `maxChanges`); they
        // are worded here, for this connection's protocol.
        let first = catchUp.next
        let changes = store.assumeIsolated { $0.history.touched(from: first, through: min(limit, first + CatchUpPump.maxChanges - 1)) }
        var out: [UInt8] = []
        var next: UInt64? = changes.map { _ in first }
        for touched in changes ?? [] where out.count < CatchUpPump.chunk {
            served.appendEvent(seq: next!, touched, to: &out)
            next! += 1
        }
        guard let next else {
            // More than the whole history behind: like a SINCE that cannot reach, it gets the
            // full state instead (held until durable, like anything that reflects a change).
            let (seq, all, lsn) = store.assumeIsolated { ($0.ledger.seq, $0.fullState, $0.lastLSN) }
            out.removeAll()
            served.appendEvent(seq: seq, all, to: &out)
            conn.catchUp = nil
            conn.eventsFrom = seq + 1
            output.send(conn, out, after: lsn)
            return
        }
        catchUp.next = next
        if next > limit {
            conn.catchUp = nil
            conn.eventsFrom = next
        } else {
            conn.catchUp = catchUp
        }
        if !out.isEmpty { output.send(conn, out) }
    }
}


extension CatchUpPlan {
    /// The catch-up to stream, if the plan is one.
    package var catchUp: CatchUp? {
        guard case .stream = start else { return nil }
        return CatchUp(next: after + 1, through: current)
    }
}

/// Streams a connection's catch-up (after `SINCE`, or a browser's `Last-Event-ID`) from the
/// store's history, one piece at a time, each once the last one is mostly out: the work is
/// paced by what the client's socket takes, never built whole. Part of the fan-out: a
/// catch-up is how a client rejoins the live events.
extension FanOut {
    /// A piece is about this many bytes.
    static let catchUpChunk = 32 * 1024
    /// Pieces per wake-up before others get their turn: one piece is more than a turn's worth
    /// of output (`FairTurn.maxOutputBytes`). Formatting 16 pieces (512 KiB) in one go, as
    /// before, kept every other client waiting for each display that caught up.
    static let catchUpPiecesPerTurn = 1

    /// Sends pieces while the client keeps up (its pending output under a piece), at most
    /// `catchUpPiecesPerTurn` per wake-up, after which the next flush pass comes back for
    /// more. Returns true once the catch-up is over.
    func pumpCatchUp(_ conn: Connection) -> Bool {
        var pieces = 0
        while conn.catchUp != nil && !conn.isClosed {
            guard conn.outbox.pendingBytes < FanOut.catchUpChunk else { return false }
            guard pieces < FanOut.catchUpPiecesPerTurn else {
                markDirty(conn)
                return false
            }
            pieces += 1
            sendNext(conn)
        }
        return conn.catchUp == nil
    }

    /// Sends the next piece. Once it reaches the seq the catch-up started at and every change
    /// broadcast since (a client gets no live events while it catches up), live events take
    /// over from the next seq: no gap, no duplicate.
    private func sendNext(_ conn: Connection) {
        guard var catchUp = conn.catchUp else { return }
        let limit = conn.eventsOn ? max(catchUp.through, lastBroadcastSeq) : catchUp.through
        let format = conn.eventFormat
        var out: [UInt8] = []
        let next = store.assumeIsolated {
            $0.appendHistory(from: catchUp.next, through: limit, format: format, budget: FanOut.catchUpChunk, to: &out)
        }
        guard let next else {
            // More than the whole history behind: like a SINCE that cannot reach, it gets the
            // full state instead (held until durable, like anything that reflects a change).
            let full = store.assumeIsolated { $0.fullEvent(format) }
            conn.catchUp = nil
            conn.eventsFrom = full.seq + 1
            output.send(conn, full.bytes, waitingFor: full.gate)
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

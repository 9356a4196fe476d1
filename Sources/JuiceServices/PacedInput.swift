import JuiceLoop

/// When a session's input runs, for protocols that read lines: within its fair turn (so many
/// lines, so much output, one computed report, then the others'), below its output budget (once
/// that much of its output is pending nothing more of its input runs, and nothing more is read,
/// until its socket took most of it), and after its catch-up. The work one client causes is so
/// paced by what its socket takes, not by how much it asked for.
///
/// It keeps the rest of a read that could not run yet (at most one read's worth: nothing more
/// is read meanwhile) and runs it as the connection drains or its next turn comes.
package final class PacedInput {
    /// Commands stop running once this much of its output is pending, and go on once it is down
    /// to a quarter.
    package let budget: Int
    private var throttled = false
    private var backlog: [UInt8] = []
    private var start = 0

    package init(budget: Int) {
        self.budget = budget
    }

    /// Nothing waits and it is under its budget: the loop may read more.
    package var wantsInput: Bool { !throttled && start == backlog.count }

    /// Whether another line may run now, its reply so far `replyBytes` long: the connection is
    /// not finishing, no catch-up streams, its output stays under the budget and its turn is
    /// not over.
    package func mayRun(_ link: SessionLink, replyBytes: Int, _ turn: FairTurn) -> Bool {
        guard let pending = link.conn.pendingOutputIfInputMayRun else { return false }
        return pending + replyBytes < budget && !turn.isOver(adding: replyBytes)
    }

    /// Keeps the rest of a read that its turn or its budget did not let run (`rest`), to run
    /// in order as the connection drains or its next turn comes; dropped if it is finishing.
    /// A session runs a read itself, keeps what did not run, then carries on (`carryOn`).
    package func keep(_ rest: UnsafeRawBufferPointer, _ link: SessionLink) {
        guard !link.conn.isFinishing else { return }
        backlog = Array(rest)
        start = 0
    }

    /// Goes on with the deferred work as far as its turn and budget allow: the catch-up first,
    /// then the input kept. Called after input, whenever its output drains, and when its next
    /// turn comes; once it is finishing, drops what waits and lets it close.
    package func carryOn(_ link: SessionLink, _ turn: inout FairTurn, run: (UnsafeRawBufferPointer, inout FairTurn) -> Int) {
        let conn = link.conn
        while true {
            // One question per round: its pending output, or nil while it is finishing or a
            // catch-up streams.
            guard let pending = conn.pendingOutputIfInputMayRun else {
                if conn.isFinishing { break }
                // A SINCE's catch-up goes first: the commands after it wait for it. A piece of
                // it is a turn's worth of output.
                let done = link.pumpCatchUp()
                turn.countOutput(CatchUpPump.chunk)
                if done { continue }
                if conn.isFinishing { break }
                return
            }
            if pending >= budget { throttled = true }
            if pending <= budget / 4 { throttled = false }
            guard start < backlog.count else {
                // The peer finished sending and all it sent has run: it closes.
                guard conn.hasInputEnded else { return }
                link.stopReading()
                break
            }
            guard !throttled else { return }
            if turn.isOver() {
                // Its share for now: the others' turns come first, then the next flush pass
                // gives it its next one.
                link.yieldTurn()
                return
            }
            let from = start
            let consumed = backlog.withUnsafeBytes { run(UnsafeRawBufferPointer(rebasing: $0[from...]), &turn) }
            start += consumed
            if start == backlog.count { (backlog, start) = ([], 0) }
        }
        // It is finishing: what waits is dropped, and it closes once its output is out.
        (backlog, start) = ([], 0)
        link.dropCatchUp()
        link.finish()
    }
}

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
        guard let pending = link.pendingOutputIfInputMayRun else { return false }
        return pending + replyBytes < budget && !turn.isOver(adding: replyBytes)
    }

    /// A read: `run` takes what its turn allows (returning how many bytes it used), the rest is
    /// kept; then whatever may go on, goes on (`carryOn`).
    package func received(_ input: UnsafeRawBufferPointer, _ link: SessionLink, _ turn: inout FairTurn,
                          run: (UnsafeRawBufferPointer, inout FairTurn) -> Int) {
        let consumed = run(input, &turn)
        if consumed < input.count && !link.isFinishing {
            backlog = Array(input[consumed...])
            start = 0
        }
        carryOn(link, &turn, run: run)
    }

    /// Goes on with the deferred work as far as its turn and budget allow: the catch-up first,
    /// then the input kept. Called after input, whenever its output drains, and when its next
    /// turn comes; once it is finishing, drops what waits and lets it close.
    package func carryOn(_ link: SessionLink, _ turn: inout FairTurn, run: (UnsafeRawBufferPointer, inout FairTurn) -> Int) {
        while !link.isFinishing {
            // A SINCE's catch-up goes first: the commands after it wait for it. A piece of it
            // is a turn's worth of output.
            if link.inCatchUp {
                let done = link.pumpCatchUp()
                turn.countOutput(CatchUpPump.chunk)
                if !done { break }
            }
            let pending = link.pendingOutput
            if pending >= budget { throttled = true }
            if pending <= budget / 4 { throttled = false }
            guard start < backlog.count else {
                if link.inputEnded { link.stopReading() }
                break
            }
            guard !throttled else { break }
            if turn.isOver() {
                // Its share for now: the others' turns come first, then the next flush pass
                // gives it its next one.
                link.yieldTurn()
                break
            }
            let from = start
            let consumed = backlog.withUnsafeBytes { run(UnsafeRawBufferPointer(rebasing: $0[from...]), &turn) }
            start += consumed
            if start == backlog.count { (backlog, start) = ([], 0) }
        }
        if link.isFinishing {
            (backlog, start) = ([], 0)
            link.dropCatchUp()
            link.finish()
        }
    }
}

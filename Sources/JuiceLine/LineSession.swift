import JuiceCore
import JuiceDomain
import JuicePlatform
import JuiceLog
import JuiceLoop
import JuiceServices

/// One line-protocol client: frames its input, runs its commands in order within its output
/// budget, and streams its SINCE catch-ups as its socket takes them.
///
/// The work one client causes is bounded twice. Per turn (`FairTurn`): at most 64 lines, 4 KiB
/// of replies or one computed report, then the others get theirs and the rest of its input waits (`deferred`) for its next turn.
/// Overall, by the output it produces: once it has `outputBudget` bytes pending, nothing more
/// of its input runs, and nothing more is read, until its socket took most of it.
package final class LineSession: ConnectionSession {
    // unowned(unsafe): a session lives inside its connection (nothing else holds it), and its
    // protocol lives as long as the server; a checked unowned reference cost a retain per use.
    private unowned(unsafe) let conn: Connection
    private unowned(unsafe) let line: LineProtocol
    /// Its pending output passed the budget: none of its commands run, and nothing is read,
    /// until it drains. A client that pipelines without reading cannot grow it without bound.
    private var throttled = false
    private var state: SessionState
    /// Input read but not yet run (see `deferred`), kept apart: a connection rarely has any.
    private var backlog: Backlog?
    private var framer = LineFramer()
    /// Its peer's address group (`PeerAddress.group`), once a run needed it.
    private var addressGroup: String?

    /// The rest of a read whose lines stopped at the output budget or at the end of its turn,
    /// from `start` on. At most one read's worth: nothing more is read until it has all run.
    private final class Backlog {
        package let bytes: [UInt8]
        package var start = 0
        package init(_ bytes: [UInt8]) { self.bytes = bytes }
    }

    package init(_ conn: Connection, protocol line: LineProtocol) {
        self.conn = conn
        self.line = line
        state = SessionState(isManager: line.isManagerByDefault)
        state.writesNeedSignIn = !line.isManagerByDefault
    }

    package var wantsInput: Bool { !throttled && backlog == nil }
    package var onlyListens: Bool { false }

    /// The greeting, sent on connect. It reflects no state: it need not wait for the journal.
    package func accepted() {
        var hello: [UInt8] = []
        Wire.hello(store: line.loop.store.storeID, to: &hello)
        line.loop.output.send(conn, hello)
    }

    package func closed() {
        if let till = state.till { line.loop.tills.closed(conn, till: till) }
    }

    /// `EVENT BYE`, after the replies it is owed.
    package func shuttingDown(byeAfter lsn: UInt64) {
        line.loop.output.send(conn, Wire.byeEvent, after: lsn)
    }

    /// Output went out, or its next turn came: go on with its deferred work.
    package func drained() {
        var turn = FairTurn(work: line.loop.store.work)
        carryOn(&turn)
    }

    /// One read's bytes: runs what its turn and its budget allow and keeps the rest for later,
    /// in order.
    package func received(_ input: UnsafeRawBufferPointer) {
        var turn = FairTurn(work: line.loop.store.work)
        let consumed = runLines(input, &turn)
        if consumed < input.count && !conn.isFinishing { backlog = Backlog(Array(input[consumed...])) }
        carryOn(&turn)
    }

    /// The peer finished sending: answer what it sent, then close.
    package func inputEnded() {
        var turn = FairTurn(work: line.loop.store.work)
        carryOn(&turn)
    }

    /// What one run of input lines produced so far: reply bytes, the journal position they wait
    /// for, the changes to broadcast, and the store commands not yet run.
    private struct Batch {
        package var out: [UInt8] = []
        package var lsn: UInt64 = 0
        package var events: [StockEvent] = []
        package var commands: [Command] = []
    }

    /// Runs the lines in `bytes` in order until the turn is over, the pending output reaches the
    /// budget or a SINCE starts a catch-up; returns how many bytes it took.
    private func runLines(_ bytes: UnsafeRawBufferPointer, _ turn: inout FairTurn) -> Int {
        var batch = Batch()
        // The protocol's buffers, lent for this run and given back (a reply and a command list
        // allocated per read showed in the profile).
        swap(&batch.out, &line.scratch.out)
        swap(&batch.commands, &line.scratch.commands)
        defer {
            batch.out.removeAll(keepingCapacity: batch.out.capacity <= LineProtocol.Scratch.keptBytes)
            batch.commands.removeAll(keepingCapacity: true)
            swap(&batch.out, &line.scratch.out)
            swap(&batch.commands, &line.scratch.commands)
        }
        let budget = line.outputBudget
        let progress = framer.feed(bytes, until: { text in
            turn.countLine()
            switch line.parser.parse(text, isManager: state.isManager, mayWrite: state.mayWrite) {
            case .empty:
                break
            case .command(.till(let credential)):
                runStore(&batch)
                signIn(credential, &batch)
            case .command(.pair) where line.loop.auth.mayGuess(peer: conn.peer) != nil:
                // Too many wrong codes (or tokens) from its address: refused unchecked.
                runStore(&batch)
                let seconds = line.loop.auth.mayGuess(peer: conn.peer)!
                state.authFailures += 1
                let closing = Int(state.authFailures) >= SessionCommands.maxAuthFailures
                Wire.tooManyAuthFailures(retryIn: seconds, closing: closing).append(to: &batch.out)
                if closing { conn.stopInput() }
            case .command(let command) where command.needsStore:
                batch.commands.append(command)
                // A SINCE that starts a catch-up ends its run: what follows waits for it. So
                // does a REPORT, which may be computed: the turn is over after one (`FairTurn`).
                if command.endsStoreRun {
                    runStore(&batch)
                } else if batch.commands.count >= LineProtocol.storeRunMax {
                    runStore(&batch)
                }
            case .command(let command):
                runStore(&batch)
                let wasManager = state.isManager
                defer {
                    // AUTH checked out (with a token: a connection starts without): a known client.
                    if state.isManager && !wasManager { line.loop.host.markKnown(conn) }
                }
                switch line.commands.answer(command, session: &state, peer: conn.peer, to: &batch.out) {
                case .none: break
                case .events(let on): line.loop.fanOut.setEvents(conn, on: on)
                case .close:
                    conn.stopInput()
                    // QUIT closes after everything owed: the events of every change applied
                    // before it (this batch's too, which the gate may still hold) go first.
                    line.loop.fanOut.oweEvents(conn, through: line.loop.store.assumeIsolated { $0.ledger.seq })
                }
            case .refused(let error, let hangUp):
                runStore(&batch)
                error.append(to: &batch.out)
                if error.code == .forbidden {
                    line.commands.logRefusal(&state, "FORBIDDEN for \(conn.peer): \(error.message)")
                }
                if hangUp {
                    Log.warning("closing \(conn.peer): \(error.message)", category: .refusals)
                    conn.stopInput()
                }
            }
            return !conn.isFinishing && conn.catchUp == nil && conn.outbox.pendingBytes + batch.out.count < budget
                && !turn.isOver(adding: batch.out.count)
        }, onTimingMark: {
            runStore(&batch)
            batch.out.append(contentsOf: LineFramer.timingMarkReply)
        })
        runStore(&batch)
        if progress.outcome == .lineTooLong && !conn.isFinishing {
            Wire.lineTooLong.append(to: &batch.out)
            Log.warning("closing \(conn.peer): line too long", category: .refusals)
            conn.stopInput()
        }
        turn.countOutput(batch.out.count)
        if !batch.out.isEmpty { line.loop.output.send(conn, batch.out, after: batch.lsn) }
        if !batch.events.isEmpty { line.loop.host.publish(batch.events) }
        return progress.consumed
    }

    /// Runs the store commands gathered so far in one synchronous call, each outcome worded
    /// into the batch's output as it comes.
    private func runStore(_ batch: inout Batch) {
        guard !batch.commands.isEmpty else { return }
        // Moved out, not copied: after the run it is the only reference again, so clearing it
        // keeps its storage.
        var commands: [Command] = []
        swap(&commands, &batch.commands)
        defer {
            commands.removeAll(keepingCapacity: true)
            swap(&commands, &batch.commands)
        }
        let (line, conn) = (self.line, self.conn)
        var paired: TillID?
        var revoked: [TillID] = []
        var wrongCodes = 0
        let role = state.role
        // Its address group, for the journal's record of who wrote (worked out once a connection).
        if addressGroup == nil { addressGroup = PeerAddress.group(of: conn.peer) }
        let group = addressGroup
        let end = line.loop.store.assumeIsolated { store in
            store.run(commands, peer: conn.peer, role: role, group: group) { outcome in
                line.codec.append(outcome, figures: { line.figures }, presence: line.loop.tills, to: &batch.out)
                switch outcome {
                case .since(let plan): line.loop.fanOut.resume(conn, from: plan.current + 1, catchUp: plan.catchUp)
                case .tills(.paired(let info, _)): paired = info.till.id
                case .tills(.refused(let error)) where error.code == .authFailed: wrongCodes += 1
                case .tills(.revoked(let info)): revoked.append(info.till.id)
                default: break
                }
            }
        }
        for _ in 0..<wrongCodes {
            // A wrong pairing code counts as a wrong token, per address and per connection.
            line.loop.auth.wrongGuess(peer: conn.peer)
            state.authFailures += 1
        }
        // The third wrong code or credential on a connection closes it (after its answer).
        if wrongCodes > 0 && Int(state.authFailures) >= SessionCommands.maxAuthFailures { conn.stopInput() }
        if let paired {
            // PAIR signs this connection in as the new till.
            if let previous = state.till { line.loop.tills.closed(conn, till: previous) }
            state.till = paired
            line.loop.tills.signedIn(conn, as: paired)
            line.loop.host.markKnown(conn)
        }
        if case .till(let till) = role { line.loop.tills.seen(till) }
        for till in revoked { closeConnections(of: till) }
        batch.lsn = max(batch.lsn, end.lsn)
        if batch.events.isEmpty { batch.events = end.events } else { batch.events.append(contentsOf: end.events) }
    }

    /// `TILL <credential>`: checked against the store's tills; this connection is that till from
    /// now on.
    private func signIn(_ credential: String, _ batch: inout Batch) {
        let (verdict, name) = line.loop.store.assumeIsolated { store in
            let verdict = store.verifyTill(credential)
            if case .till(let id) = verdict { return (verdict, store.ledger.tills.till(id)?.name) }
            return (verdict, nil)
        }
        if case .till(let id) = verdict, !line.loop.tills.hasRoom(for: conn, as: id) {
            ProtocolError(.busy, "till \(id) has \(TillPresence.maxConnectionsPerTill) connections open; closing").append(to: &batch.out)
            conn.stopInput()
            return
        }
        let previous = state.till
        if case .close = line.commands.signIn(verdict, name: name, session: &state, peer: conn.peer, to: &batch.out) {
            conn.stopInput()
        }
        guard case .till(let till) = verdict else { return }
        if let previous, previous != till { line.loop.tills.closed(conn, till: previous) }
        line.loop.tills.signedIn(conn, as: till)
        // A paired till is a known client: the reserve is its, and it is never reaped as idle.
        line.loop.host.markKnown(conn)
    }

    /// A till was revoked: its connections are closed once what they are owed is out (the
    /// answers to writes already applied; anything after is refused, `REVOKED`).
    private func closeConnections(of till: TillID) {
        for other in line.loop.tills.takeConnections(of: till) where !other.isFinishing {
            other.stopInput()
            line.loop.host.finish(other)
        }
    }

    /// Goes on with its deferred work as far as its turn and its budget allow: its catch-up
    /// first, then the input it sent that has not run yet. Called after input, whenever its
    /// output drains (so the work is paced by what its socket takes), and when its next turn
    /// comes.
    private func carryOn(_ turn: inout FairTurn) {
        while !conn.isFinishing {
            // A SINCE's catch-up goes first: the commands after it wait for it. A piece of it
            // is a turn's worth of output.
            if conn.catchUp != nil {
                let done = line.loop.catchUp.pump(conn)
                turn.countOutput(CatchUpPump.chunk)
                if !done { break }
            }
            let pending = conn.outbox.pendingBytes
            if pending >= line.outputBudget { throttled = true }
            if pending <= line.outputBudget / 4 { throttled = false }
            guard let backlog else {
                if conn.phase == .inputEnded { conn.stopInput() }
                break
            }
            guard !throttled else { break }
            if turn.isOver() {
                // Its share for now: the others' turns come first, then the next flush pass
                // gives it its next one.
                line.loop.passes.markDirty(conn)
                break
            }
            let consumed = backlog.bytes.withUnsafeBytes { runLines(UnsafeRawBufferPointer(rebasing: $0[backlog.start...]), &turn) }
            backlog.start += consumed
            if backlog.start == backlog.bytes.count { self.backlog = nil }
        }
        if conn.isFinishing {
            backlog = nil
            line.loop.catchUp.drop(conn)
            line.loop.host.finish(conn)
        }
    }
}

private extension Command {
    /// Whether the store run ends after it: a SINCE's catch-up, or a REPORT's computation.
    package var endsStoreRun: Bool {
        switch self {
        // A PAIR too: a wrong code is counted (per address, and toward the connection's three)
        // before the next line runs, so a pipeline of guesses gets three, not a run's sixteen.
        case .since, .report, .pair: true
        default: false
        }
    }
}

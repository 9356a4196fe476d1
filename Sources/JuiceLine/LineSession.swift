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
/// of replies or one computed report, then the others get theirs and the rest of its input waits (`PacedInput`) for its next turn.
/// Overall, by the output it produces: once it has `outputBudget` bytes pending, nothing more
/// of its input runs, and nothing more is read, until its socket took most of it.
package final class LineSession: ConnectionSession {
    /// Its connection, as a session may use it (the only way to the loop).
    private let link: SessionLink
    // unowned(unsafe): the protocol lives as long as the server; a checked unowned reference
    // cost a retain per use.
    private unowned(unsafe) let line: LineProtocol
    private var state: SessionState
    /// When its input runs: its turn, its output budget, its catch-up first.
    private let input: PacedInput
    private var framer = LineFramer()
    /// Its peer's address group (`PeerAddress.group`), once a run needed it.
    private var addressGroup: String?

    package init(_ link: SessionLink, protocol line: LineProtocol) {
        self.link = link
        self.line = line
        input = PacedInput(budget: line.outputBudget)
        state = SessionState(isManager: line.isManagerByDefault)
        state.writesNeedSignIn = !line.isManagerByDefault
    }

    package var wantsInput: Bool { input.wantsInput }
    package var onlyListens: Bool { false }

    /// The greeting, sent on connect. It reflects no state: it need not wait for the journal.
    package func accepted() {
        var hello: [UInt8] = []
        Wire.hello(store: line.loop.store.storeID, to: &hello)
        link.send(hello)
    }

    package func closed() {
        if let till = state.till { link.left(till) }
    }

    /// `EVENT BYE`, after the replies it is owed.
    package func shuttingDown(byeAfter lsn: UInt64) {
        link.send(Wire.byeEvent, after: lsn)
    }

    /// Output went out, or its next turn came: go on with its deferred work, as far as its turn
    /// and its budget allow (`PacedInput.carryOn`: its catch-up first, then the input it sent
    /// that has not run yet). So the work is paced by what its socket takes.
    package func drained() {
        var turn = FairTurn(work: line.loop.store.work)
        input.carryOn(link, &turn) { runLines($0, &$1) }
    }

    /// One read's bytes: runs what its turn and its budget allow and keeps the rest for later,
    /// in order; then whatever may go on, goes on.
    package func received(_ bytes: UnsafeRawBufferPointer) {
        var turn = FairTurn(work: line.loop.store.work)
        let consumed = runLines(bytes, &turn)
        if consumed < bytes.count { input.keep(UnsafeRawBufferPointer(rebasing: bytes[consumed...]), link) }
        input.carryOn(link, &turn) { runLines($0, &$1) }
    }

    /// The peer finished sending: answer what it sent, then close.
    package func inputEnded() {
        drained()
    }

    /// What one run of input lines produced so far: reply bytes, the journal position they wait
    /// for, the changes to broadcast, and the store commands not yet run.
    private struct Batch {
        var reply = Reply()
        var commands: [StoreCommand] = []
    }

    /// Runs the lines in `bytes` in order until the turn is over, the pending output reaches the
    /// budget or a SINCE starts a catch-up; returns how many bytes it took.
    private func runLines(_ bytes: UnsafeRawBufferPointer, _ turn: inout FairTurn) -> Int {
        var batch = Batch()
        // The protocol's buffers, lent for this run and given back (a reply and a command list
        // allocated per read showed in the profile).
        swap(&batch.reply.bytes, &line.scratch.out)
        swap(&batch.commands, &line.scratch.commands)
        defer {
            // Both are empty by now (`answer` and `runStore` emptied them, keeping their storage):
            // emptying them again costs a call each per read, so only a big reply buffer is given up.
            if batch.reply.bytes.capacity > LineProtocol.Scratch.keptBytes {
                batch.reply.bytes = []
            } else if !batch.reply.bytes.isEmpty {
                batch.reply.bytes.removeAll(keepingCapacity: true)
            }
            if !batch.commands.isEmpty { batch.commands.removeAll(keepingCapacity: true) }
            swap(&batch.reply.bytes, &line.scratch.out)
            swap(&batch.commands, &line.scratch.commands)
        }
        let progress = framer.feed(bytes, until: { text in
            turn.countLine()
            switch line.parser.parse(text, isManager: state.isManager, mayWrite: state.mayWrite) {
            case .empty:
                break
            case .command(.till(let credential)):
                runStore(&batch)
                signIn(credential, &batch)
            case .command(let command):
                if case .pair = command, let seconds = line.loop.auth.mayGuess(peer: link.peer) {
                    // Too many wrong codes (or tokens) from its address: refused unchecked.
                    runStore(&batch)
                    state.authFailures += 1
                    let closing = Int(state.authFailures) >= SessionCommands.maxAuthFailures
                    Wire.tooManyAuthFailures(retryIn: seconds, closing: closing).append(to: &batch.reply.bytes)
                    if closing { link.stopReading() }
                    break
                }
                // Asked once (a call into JuiceCore that copies the command's values).
                guard let storeCommand = command.storeCommand else {
                    runStore(&batch)
                    answerOwn(command, &batch)
                    break
                }
                // A SINCE that starts a catch-up ends its run: what follows waits for it. So
                // does a REPORT, which may be computed: the turn is over after one (`FairTurn`).
                // (Asked before it is appended, its last use, so that it is moved, not copied.)
                let endsRun = storeCommand.endsStoreRun
                batch.commands.append(storeCommand)
                if endsRun || batch.commands.count >= LineProtocol.storeRunMax {
                    runStore(&batch)
                }
            case .refused(let error, let hangUp):
                runStore(&batch)
                error.append(to: &batch.reply.bytes)
                if error.code == .forbidden {
                    line.commands.logRefusal(&state, "FORBIDDEN for \(link.peer): \(error.message)")
                }
                if hangUp {
                    Log.warning("closing \(link.peer): \(error.message)", category: .refusals)
                    link.stopReading()
                }
            }
            return input.mayRun(link, replyBytes: batch.reply.bytes.count, turn)
        }, onTimingMark: {
            runStore(&batch)
            batch.reply.bytes.append(contentsOf: LineFramer.timingMarkReply)
        })
        runStore(&batch)
        if progress.outcome == .lineTooLong && !link.isFinishing {
            Wire.lineTooLong.append(to: &batch.reply.bytes)
            Log.warning("closing \(link.peer): line too long", category: .refusals)
            link.stopReading()
        }
        turn.countOutput(batch.reply.bytes.count)
        link.answer(&batch.reply)
        return progress.consumed
    }

    /// A command the connection answers itself (HELP, PING, MENU, EVENTS, AUTH, QUIT).
    private func answerOwn(_ command: Command, _ batch: inout Batch) {
        let wasManager = state.isManager
        defer {
            // AUTH checked out (with a token: a connection starts without): a known client.
            if state.isManager && !wasManager { link.markKnown() }
        }
        switch line.commands.answer(command, session: &state, peer: link.peer, to: &batch.reply.bytes) {
        case .none: break
        case .events(let on): link.events(on: on)
        case .close:
            link.stopReading()
            // QUIT closes after everything owed: the events of every change applied
            // before it (this batch's too, which the gate may still hold) go first.
            link.oweEvents()
        }
    }

    /// Runs the store commands gathered so far in one synchronous call, each outcome worded
    /// into the batch's output as it comes.
    private func runStore(_ batch: inout Batch) {
        guard !batch.commands.isEmpty else { return }
        // Moved out, not copied: after the run it is the only reference again, so clearing it
        // keeps its storage.
        var commands: [StoreCommand] = []
        swap(&commands, &batch.commands)
        defer {
            commands.removeAll(keepingCapacity: true)
            swap(&commands, &batch.commands)
        }
        let (line, link) = (self.line, self.link)
        var paired: TillID?
        var revoked: [TillID] = []
        var wrongCodes = 0
        let role = state.role
        // Its address group, for the journal's record of who wrote (worked out once a connection).
        if addressGroup == nil { addressGroup = PeerAddress.group(of: link.peer) }
        let group = addressGroup
        link.run(commands, role: role, group: group, into: &batch.reply) { outcome, out in
            line.codec.append(outcome, figures: { line.figures }, presence: line.loop.tills, to: &out)
            switch outcome {
            case .since(let plan): link.resume(from: plan.current + 1, catchUp: plan.catchUp)
            case .tills(.paired(let info, _)): paired = info.till.id
            case .tills(.refused(let error)) where error.code == .authFailed: wrongCodes += 1
            case .tills(.revoked(let info)): revoked.append(info.till.id)
            default: break
            }
        }
        for _ in 0..<wrongCodes {
            // A wrong pairing code counts as a wrong token, per address and per connection.
            line.loop.auth.wrongGuess(peer: link.peer)
            state.authFailures += 1
        }
        // The third wrong code or credential on a connection closes it (after its answer).
        if wrongCodes > 0 && Int(state.authFailures) >= SessionCommands.maxAuthFailures { link.stopReading() }
        if let paired {
            // PAIR signs this connection in as the new till.
            if let previous = state.till { link.left(previous) }
            state.till = paired
            link.signedIn(as: paired)
            link.markKnown()
        }
        if case .till(let till) = role { line.loop.tills.seen(till) }
        for till in revoked { link.closeConnections(of: till) }
        // It revoked the till it is itself: it closes too, once this answer is out.
        if let mine = state.till, revoked.contains(mine) { link.stopReading() }
    }

    /// `TILL <credential>`: checked against the store's tills; this connection is that till from
    /// now on.
    private func signIn(_ credential: String, _ batch: inout Batch) {
        let (verdict, name) = line.loop.store.assumeIsolated { store in
            let verdict = store.verifyTill(credential)
            if case .till(let id) = verdict { return (verdict, store.ledger.tills.till(id)?.name) }
            return (verdict, nil)
        }
        if case .till(let id) = verdict, !link.tillHasRoom(id) {
            ProtocolError(.busy, "till \(id) has \(TillPresence.maxConnectionsPerTill) connections open; closing").append(to: &batch.reply.bytes)
            link.stopReading()
            return
        }
        let previous = state.till
        if case .close = line.commands.signIn(verdict, name: name, session: &state, peer: link.peer, to: &batch.reply.bytes) {
            link.stopReading()
        }
        guard case .till(let till) = verdict else { return }
        if let previous, previous != till { link.left(previous) }
        link.signedIn(as: till)
        // A paired till is a known client: the reserve is its, and it is never reaped as idle.
        link.markKnown()
    }
}

private extension StoreCommand {
    /// Whether the store run ends after it: a SINCE's catch-up, or a REPORT's computation.
    var endsStoreRun: Bool {
        switch self {
        // A PAIR too: a wrong code is counted (per address, and toward the connection's three)
        // before the next line runs, so a pipeline of guesses gets three, not a run's sixteen.
        case .since, .report, .pair: true
        default: false
        }
    }
}

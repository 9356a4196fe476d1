import JuiceCore

/// The line protocol's side of a connection: frames its input, runs its commands in order
/// within its output budget, and streams its SINCE catch-ups as its socket takes them.
///
/// The work one client causes is bounded twice. Per turn (`FairTurn`): at most 64 lines, then
/// the others get theirs and the rest of its input waits (`LineConnection.deferred`) for its
/// next turn. Overall, by the output it produces: once it has `outputBudget` bytes pending,
/// nothing more of its input runs, and nothing more is read, until its socket took most of it.
final class LineProtocol: ConnectionHandler {
    private let store: FruitStore
    private let parser: CommandParser
    private let session: SessionCommands
    private let output: OutputPath
    private let fanOut: FanOut
    private unowned let host: any ConnectionHost
    private let isManagerByDefault: Bool
    private let startedAt: UInt64
    /// Commands stop running for a client once this much of its output is pending (replies
    /// waiting for its socket or for the journal), and go on once it is down to a quarter.
    let outputBudget: Int

    static let defaultBudget = 256 * 1024
    /// Store commands run together in one call (one actor entry per run, not per line), at
    /// most this many, so the output budget and the turn's output are checked at least this
    /// often. 16: a pipeline of 16 (S2) is still one call per read.
    static let storeRunMax = 16

    init(_ services: LoopServices) {
        store = services.store
        parser = CommandParser(menu: services.store.menu)
        session = SessionCommands(menu: services.store.menu, auth: services.auth)
        output = services.output
        fanOut = services.fanOut
        host = services.host
        // Without a token every client may manage stock.
        isManagerByDefault = services.config.managerToken == nil
        startedAt = services.startedAt
        outputBudget = min(LineProtocol.defaultBudget, output.maxOutputBytes / 4)
    }

    // MARK: ConnectionHandler

    var logName: String { "" }
    var acceptsWhileDraining: Bool { false }

    func busyRefusal(perAddress: Bool) -> [UInt8] { perAddress ? Wire.busyForAddress : Wire.busy }

    func makeConnection(id: UInt64, fd: Int32, peer: String, listener: UInt8, now: UInt64) -> Connection {
        LineConnection(id: id, fd: fd, peer: peer, listener: listener, isManager: isManagerByDefault, now: now)
    }

    /// The greeting, sent on connect. It reflects no state: it need not wait for the journal.
    func accepted(_ conn: Connection) {
        var hello: [UInt8] = []
        Wire.hello(store: store.storeID, to: &hello)
        output.send(conn, hello)
    }

    func closed(_ conn: Connection) {}

    /// `EVENT BYE`, after the replies it is owed.
    func shuttingDown(_ conn: Connection, byeAfter lsn: UInt64) {
        output.send(conn, Wire.byeEvent, waitingFor: lsn)
    }

    func stop() {}

    /// Output went out, or its next turn came (`FanOut.markDirty`): go on with its deferred work.
    func drained(_ conn: Connection) {
        var turn = FairTurn()
        carryOn(line(conn), &turn)
    }

    /// Every connection this handler sees is one it made.
    private func line(_ conn: Connection) -> LineConnection {
        unsafeDowncast(conn, to: LineConnection.self)
    }

    /// One read's bytes: runs what its turn and its budget allow and keeps the rest for later,
    /// in order.
    func received(_ conn: Connection, _ input: UnsafeRawBufferPointer) {
        let conn = line(conn)
        var turn = FairTurn()
        let consumed = runLines(conn, input, &turn)
        if consumed < input.count && !conn.isFinishing {
            conn.deferred = Array(input[consumed...])
            conn.deferredStart = 0
        }
        carryOn(conn, &turn)
    }

    /// The peer finished sending: answer what it sent, then close.
    func inputEnded(_ conn: Connection) {
        if conn.phase == .open { conn.phase = .inputEnded }
        var turn = FairTurn()
        carryOn(line(conn), &turn)
    }

    /// What one run of input lines produced so far: reply bytes, the journal position they wait
    /// for, the changes to broadcast, and the store commands not yet run.
    private struct Batch {
        var out: [UInt8] = []
        /// The journal position the replies wait for.
        var durableAfter: UInt64 = 0
        var events: [StockEvent] = []
        var commands: [Command] = []
    }

    /// Runs the lines in `bytes` in order until the turn is over, the connection's pending
    /// output reaches the budget or a SINCE starts a catch-up; returns how many bytes it took.
    private func runLines(_ conn: LineConnection, _ bytes: UnsafeRawBufferPointer, _ turn: inout FairTurn) -> Int {
        var batch = Batch()
        let budget = outputBudget
        let progress = conn.framer.feed(bytes, until: { line in
            turn.countLine()
            switch parser.parse(line, isManager: conn.session.isManager) {
            case .empty:
                break
            case .command(let command) where command.needsStore:
                batch.commands.append(command)
                if case .since = command {
                    runStore(&batch, conn)
                } else if batch.commands.count >= LineProtocol.storeRunMax {
                    runStore(&batch, conn)
                }
            case .command(let command):
                runStore(&batch, conn)
                switch session.answer(command, session: &conn.session, peer: conn.peer, to: &batch.out) {
                case .none: break
                case .events(let on): fanOut.setEvents(conn, on: on)
                case .close:
                    conn.phase = .closing
                    // QUIT closes after everything owed: the events of every change applied
                    // before it (this batch's too, which the gate may still hold) go first.
                    fanOut.oweEventsSoFar(conn)
                }
            case .refused(let error, let hangUp):
                runStore(&batch, conn)
                error.append(to: &batch.out)
                if error.code == .forbidden {
                    session.logRefusal(&conn.session, "FORBIDDEN for \(conn.peer): \(error.message)")
                }
                if hangUp {
                    Log.warning("closing \(conn.peer): \(error.message)", category: .refusals)
                    conn.phase = .closing
                }
            }
            return !conn.isFinishing && conn.catchUp == nil && conn.outbox.pendingBytes + batch.out.count < budget
                && !turn.isOver(adding: batch.out.count)
        }, onTimingMark: {
            runStore(&batch, conn)
            batch.out.append(contentsOf: LineFramer.timingMarkReply)
        })
        runStore(&batch, conn)
        if progress.outcome == .lineTooLong && !conn.isFinishing {
            Wire.lineTooLong.append(to: &batch.out)
            Log.warning("closing \(conn.peer): line too long", category: .refusals)
            conn.phase = .closing
        }
        turn.countOutput(batch.out.count)
        if !batch.out.isEmpty { output.send(conn, batch.out, waitingFor: batch.durableAfter) }
        if !batch.events.isEmpty { host.publish(batch.events) }
        return progress.consumed
    }

    /// Runs the store commands gathered so far in one synchronous call.
    private func runStore(_ batch: inout Batch, _ conn: LineConnection) {
        guard !batch.commands.isEmpty else { return }
        let stats = StatsContext(clients: host.clientCount, startedAt: startedAt)
        let commands = batch.commands
        batch.commands = []  // not removeAll(keepingCapacity:), which would copy the array `commands` shares
        let peer = conn.peer
        let result = store.assumeIsolated { $0.execute(commands, stats: stats, peer: peer) }
        if batch.out.isEmpty { batch.out = result.out } else { batch.out.append(contentsOf: result.out) }
        batch.durableAfter = max(batch.durableAfter, result.gate)
        batch.events.append(contentsOf: result.events)
        if result.eventsFrom != nil || result.catchUp != nil { fanOut.resume(conn, from: result.eventsFrom, catchUp: result.catchUp) }
    }

    /// Goes on with a connection's deferred work as far as its turn and its budget allow: its
    /// catch-up first, then the input it sent that has not run yet. Called after input,
    /// whenever its output drains (so the work is paced by what its socket takes), and when
    /// its next turn comes.
    private func carryOn(_ conn: LineConnection, _ turn: inout FairTurn) {
        while !conn.isFinishing {
            // A SINCE's catch-up goes first: the commands after it wait for it. A piece of it
            // is a turn's worth of output.
            if conn.catchUp != nil {
                let done = fanOut.pumpCatchUp(conn)
                turn.countOutput(FanOut.catchUpChunk)
                if !done { break }
            }
            let pending = conn.outbox.pendingBytes
            if pending >= outputBudget { conn.throttled = true }
            if pending <= outputBudget / 4 { conn.throttled = false }
            guard conn.hasDeferredInput else {
                if conn.phase == .inputEnded { conn.phase = .closing }
                break
            }
            guard !conn.throttled else { break }
            if turn.isOver() {
                // Its share for now: the others' turns come first, then the next flush pass
                // gives it its next one.
                fanOut.markDirty(conn)
                break
            }
            let input = conn.deferred
            let consumed = input.withUnsafeBytes { runLines(conn, UnsafeRawBufferPointer(rebasing: $0[conn.deferredStart...]), &turn) }
            conn.deferredStart += consumed
            if !conn.hasDeferredInput {
                conn.deferred = []
                conn.deferredStart = 0
            }
        }
        if conn.isFinishing {
            conn.deferred = []
            conn.deferredStart = 0
            fanOut.dropCatchUp(conn)
            host.finish(conn)
        } else {
            output.updateInterest(conn)
        }
    }
}

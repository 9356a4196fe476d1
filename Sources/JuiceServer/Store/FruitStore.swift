import Dispatch
import JuiceCore

/// The one place that changes stock. It runs on the server's loop (see `LoopExecutor`), so the
/// socket layer calls it synchronously with `assumeIsolated`, once per batch of lines that a read
/// delivered, and orders are applied strictly one after another: no two cashiers can both take
/// the last mango.
actor FruitStore {
    nonisolated let executor: LoopExecutor
    nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    nonisolated let menu: Menu
    /// The store's id (`StoreIdentity`): in the greeting, `/state` and event-stream ids.
    nonisolated let storeID: String
    private(set) var ledger: StockLedger
    private var history: EventHistory
    /// The journal's group commit (nil in memory): records go there, and it says how far they are
    /// on disk (to the durability gate directly: `Running` wires it).
    nonisolated let journal: GroupCommit?
    /// The journal size past which the store compacts it (`--journal-max-bytes`).
    private let compactAfter: Int
    /// The position of the last record appended to the journal, and of the last one on disk.
    var lastLSN: UInt64 { journal?.lastLSN ?? 0 }
    var durableLSN: UInt64 { journal?.durableLSN ?? 0 }
    /// Orders served and refused per wall-clock minute, since start (for `/sales`), and the
    /// clock that stamps them (unix seconds; tests set their own with `setWallClock`).
    private var minutes = MinuteCounts()
    private var wallClock: @Sendable () -> Int64 = WallClock.unixSeconds
    /// What each client address may add to the lost-sales figures.
    private var lostSales: LostSalesAllowance

    /// A store over `ledger`; with a `journal` (see `Server.make`), `history` holds the changes
    /// recovered from it, and the journal is compacted past `compactAfter` bytes.
    init(executor: LoopExecutor, ledger: StockLedger, journal: GroupCommit?, history: EventHistory = EventHistory(),
         compactAfter: Int = 64 << 20, lostSalesPerMinute: Int = LostSalesAllowance.defaultPerMinute,
         storeID: String = StoreIdentity.fresh()) {
        self.lostSales = LostSalesAllowance(perMinute: lostSalesPerMinute)
        self.executor = executor
        self.storeID = storeID
        self.menu = ledger.menu
        self.ledger = ledger
        self.journal = journal
        self.history = history
        self.compactAfter = compactAfter
    }

    func setWallClock(_ clock: @escaping @Sendable () -> Int64) {
        wallClock = clock
    }

    /// Runs commands in order, appending each reply to `out`. `peer` is the client's address as
    /// the loop knows it ("10.0.0.7:5000"): its key-memory share and lost-sales allowance are
    /// its group's (`PeerAddress.group`: an IPv6 client by its /64), worked out only for a write that needs them.
    func execute(_ commands: [Command], stats: StatsContext, peer: String = "") -> StoreReplies {
        var result = StoreReplies(out: [], gate: 0)
        result.out.reserveCapacity(48 * commands.count)
        var client = ClientOf(peer: peer)
        for command in commands {
            switch command {
            case .stock(let fruit):
                Wire.appendStock(seq: ledger.seq, stock: ledger.stock, only: fruit, menu: menu, to: &result.out)
            case .order(let request):
                // A retry of a keyed write the store holds changes nothing: it gets its reply.
                if isNew(request.key), refused(into: &result) { continue }
                order(request, client: &client, into: &result)
            case .restock(let fruit, let amount, let key), .set(let fruit, let amount, let key):
                if isNew(key), refused(into: &result) { continue }
                // The owner (the client's group) only for a keyed write: its share of the keys.
                let now = wallClock(), owner = key == nil ? nil : client.host
                let outcome = if case .restock = command {
                    ledger.restock(fruit: fruit, amount: amount, key: key, by: owner, at: now)
                } else {
                    ledger.set(fruit: fruit, amount: amount, key: key, by: owner, at: now)
                }
                written(outcome, at: now, into: &result)
            case .since(let after, let store):
                since(after, store: store, into: &result)
                if result.catchUp != nil {
                    assert(command == commands.last, "a SINCE that starts a catch-up ends its run")
                }
            case .stats:
                appendStats(stats, to: &result.out)
            case .report(let day):
                Wire.report(report(day: day), to: &result.out)
            default:
                assertionFailure("\(command) is not a store command")
            }
        }
        result.gate = lastLSN
        journal?.flush()
        compactIfDue()
        return result
    }

    /// Unkeyed, or a key the store does not hold: a write that would change something.
    private func isNew(_ key: String?) -> Bool {
        key.map { ledger.keys[$0] == nil } ?? true
    }

    /// Past `compactAfter` bytes of journal, the ledger becomes the snapshot and the journal
    /// starts afresh (`GroupCommit.compact`). The store decides when, because the snapshot is its
    /// state: after a run of commands, with every record of it appended.
    private func compactIfDue() {
        guard let journal, journal.journalBytes >= compactAfter, journal.canCompact else { return }
        journal.compact(ledger)
    }

    /// Refuses a change with `ERR READ_ONLY` if the journal has no room for its record: asked
    /// before the change is applied, so a refused change takes nothing, no seq, no key, and
    /// counts in no sales (PROTOCOL.md, "Full disk").
    private func refused(into result: inout StoreReplies) -> Bool {
        switch journal?.refusal() {
        case nil: return false
        case .readOnly(let reason)?: Wire.readOnly(reason).append(to: &result.out)
        case .growing?: Wire.journalGrowing.append(to: &result.out)
        }
        return true
    }

    /// Why the store refuses changes (a full disk), or nil: for `/healthz`, `/state`, `/metrics`.
    var readOnly: String? { journal?.readOnly }

    private func order(_ request: OrderRequest, client: inout ClientOf, into result: inout StoreReplies) {
        let now = wallClock()
        // The client's group and its lost-sales allowance are worked out only for a keyed order
        // or a refusal: an order that sells needs neither.
        var counted = false
        let outcome = ledger.order(request, by: request.key == nil ? nil : client.host, at: now) {
            counted = lostSales.allows(request.count, from: client.host, now: now)
            return counted
        }
        switch outcome {
        case .applied(let change):
            minutes.record(served: true, at: now)
            applied(change, at: now, into: &result)
        case .refused(let error, let had):
            error.append(to: &result.out)
            if counted {
                lostSales.spend(request.count, from: client.host, now: now)
                minutes.record(served: false, at: now)
            }
            // An uncounted refusal changed nothing but its key: without one, nothing to keep.
            if counted || request.key != nil {
                journal?.append { JournalRecord(refusing: request, had: had, lsn: $0, menu: menu, time: now, counted: counted) }
            }
        case let outcome:
            written(outcome, at: now, into: &result)
        }
    }

    /// Answers a keyed write's outcome (a RESTOCK or SET's, or an order's that is no sale).
    private func written(_ outcome: OrderOutcome, at now: Int64, into result: inout StoreReplies) {
        switch outcome {
        case .applied(let change):
            applied(change, at: now, into: &result)
        case .refused(let error, _), .keyReused(let error):
            error.append(to: &result.out)
        case .duplicate(let reply):
            result.out.append(contentsOf: reply)
            result.out.append(contentsOf: Wire.dupSuffix)
        case .busy(let refusal):
            Wire.keyMemoryFull(refusal).append(to: &result.out)
            result.retryAfterSeconds = refusal.retryAfterSeconds
        }
    }

    /// A change was applied in memory: reply, journal it, remember and broadcast its event.
    private func applied(_ change: Change, at now: Int64, into result: inout StoreReplies) {
        Wire.appendReply(for: change, menu: menu, to: &result.out)
        journal?.append { JournalRecord(change, lsn: $0, menu: menu, time: now) }
        let event = StockEvent(change, lsn: lastLSN, menu: menu)
        history.append(seq: event.seq, line: event.line)
        result.events.append(event)
    }

    /// `store`: the store the client's seq belongs to, if it said (rule 3: another store's seq
    /// gets the full state, whatever it is).
    private func since(_ after: UInt64, store: String?, into result: inout StoreReplies) {
        let current = ledger.seq
        Wire.sinceHeader(after: after, current: current, to: &result.out)
        if let store, store != storeID {
            Wire.appendFullEvent(seq: current, stock: ledger.stock, menu: menu, to: &result.out)
        } else if after == current {
            // Nothing to catch up on.
        } else if history.reaches(after: after, current: current) {
            // Not built here: up to 10,000 lines, times every SINCE a client pipelines, is
            // what let one unread client balloon the server. The server streams them.
            result.catchUp = CatchUp(next: after + 1, through: current)
        } else {
            Wire.appendFullEvent(seq: current, stock: ledger.stock, menu: menu, to: &result.out)
        }
        result.eventsFrom = current + 1
    }

    /// Appends history events from seq `next` on, up to seq `limit`, in `format`, until `out`
    /// holds `budget` bytes. Returns the next seq to send, or nil if the history no longer holds
    /// `next` (the client fell more than `Limits.historyEvents` changes behind).
    func appendHistory(from next: UInt64, through limit: UInt64, format: EventFormat, budget: Int,
                       to out: inout [UInt8]) -> UInt64? {
        var seq = next
        while seq <= limit && out.count < budget {
            guard let line = history.line(seq: seq) else { return nil }
            switch format {
            case .line:
                out.append(contentsOf: line)
            case .stream:
                // The history keeps lines only; the client-side reader gives the values back.
                guard case .stockEvent(let update) = ServerLine.parse(String(decoding: line, as: UTF8.self)),
                      let touched = WireReader.fruitValues(update, menu: menu) else { return nil }
                Wire.appendStreamEvent(seq: seq, touched, menu: menu, to: &out)
            }
            seq += 1
        }
        return seq
    }

    /// The full-state event at the current seq and the journal position it must wait for: what
    /// a catch-up that fell out of the history gets instead, as SINCE does.
    func fullEvent(_ format: EventFormat) -> (bytes: [UInt8], seq: UInt64, gate: UInt64) {
        var out: [UInt8] = []
        switch format {
        case .line: Wire.appendFullEvent(seq: ledger.seq, stock: ledger.stock, menu: menu, to: &out)
        case .stream: Wire.appendFullStreamEvent(seq: ledger.seq, stock: ledger.stock, menu: menu, to: &out)
        }
        return (out, ledger.seq, lastLSN)
    }

    /// Where a browser's event stream starts. Without `lastEventID`: one full-state message.
    /// With it: the changes after it, as `SINCE` would (a catch-up streamed from the history),
    /// or one full-state message if the history cannot reach, the id is ahead of the store, or
    /// it names another store.
    func openStream(after lastEventID: EventID?) -> StoreReplies {
        var result = StoreReplies(out: [], gate: lastLSN)
        let current = ledger.seq
        if let id = lastEventID, id.store.map({ $0 == storeID }) ?? true, history.reaches(after: id.seq, current: current) {
            if id.seq < current { result.catchUp = CatchUp(next: id.seq + 1, through: current) }
        } else {
            Wire.appendFullStreamEvent(seq: current, stock: ledger.stock, menu: menu, to: &result.out)
        }
        result.eventsFrom = current + 1
        return result
    }

    private func appendStats(_ context: StatsContext, to out: inout [UInt8]) {
        let uptime = (DispatchTime.now().uptimeNanoseconds - context.startedAt) / 1_000_000_000
        Wire.stats(StatsValues(clients: context.clients, uptimeSeconds: uptime, seq: ledger.seq, ordersServed: ledger.ordersServed,
                               ordersRefused: ledger.ordersRefused, sold: ledger.sold,
                               lost: ledger.lost, short: ledger.short, keys: ledger.keys.count,
                               journal: journal?.counts), menu: menu, to: &out)
    }

    /// The report of one business day (nil: today), by the clock now.
    func report(day: Int32?) -> DayReport {
        let today = ledger.history.calendar.day(at: wallClock())
        return ledger.history.report(day: day ?? today, today: today)
    }

    /// The business day now.
    var today: Int32 { ledger.history.calendar.day(at: wallClock()) }

    /// The figures of the manager's views (`/sales`, `/metrics`), read now. They include the
    /// latest changes, also those whose journal write is still under way: a caller that must show
    /// only durable figures (as the line replies do) waits until `durableLSN` reaches the
    /// `lastLSN` read with them.
    func salesSnapshot() -> SalesValues {
        SalesValues(menu: menu, seq: ledger.seq, ordersServed: ledger.ordersServed, ordersRefused: ledger.ordersRefused,
                    stock: ledger.stock, sold: ledger.sold, lost: ledger.lost, short: ledger.short,
                    perMinute: minutes.window(at: wallClock()),
                    journal: journal?.counts)
    }
}

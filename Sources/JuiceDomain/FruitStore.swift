import Dispatch
import JuiceCore
import JuicePlatform
import JuiceLog

/// The one place that changes stock: typed commands in, typed outcomes out (`StoreOutcome`);
/// no protocol's words. It runs on the server's loop (see `LoopExecutor`), so a protocol calls
/// it synchronously with `assumeIsolated`, once per run of commands that a read delivered, and
/// orders are applied strictly one after another: no two cashiers can both take the last mango.
package actor FruitStore {
    package nonisolated let executor: LoopExecutor
    package nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    package nonisolated let menu: Menu
    /// The store's id (`StoreIdentity`): in the greeting, `/state` and event-stream ids.
    package nonisolated let storeID: String
    package var ledger: StockLedger
    package private(set) var history: EventHistory
    /// The changes of the run under way (`run`), to broadcast once its answers are queued.
    private var changes: [StockEvent] = []
    /// The journal's group commit (nil in memory): records go there, and it says how far they are
    /// on disk (to the durability gate directly: `Server.start` wires it, `durabilityListener`).
    package let journal: (any ChangeJournal)?
    /// The journal size past which the store compacts it (`--journal-max-bytes`).
    private let compactAfter: Int
    /// The position of the last record appended to the journal, and of the last one on disk.
    package var lastLSN: UInt64 { journal?.lastLSN ?? 0 }
    package var durableLSN: UInt64 { journal?.durableLSN ?? 0 }
    /// Orders served and refused per wall-clock minute, since start (for `/sales`), and the
    /// clock that stamps them (unix seconds; tests set their own with `setWallClock`).
    private var minutes = MinuteCounts()
    /// (Internal, not `package`: a stored field other modules could reach keeps a run-time
    /// exclusivity check at each access, one an order here.)
    private(set) var wallClock: @Sendable () -> Int64 = WallClock.unixSeconds
    /// What each client address may add to the lost-sales figures.
    private var lostSales: LostSalesAllowance
    /// Reports computed once per change of the history and shared by every client asking.
    private var reports = ReportCache()
    /// Counts the reports computed (not cached): the loop's fair turn ends after one.
    package nonisolated let work = WorkMeter()
    /// `today`, kept from `from` until `end` (unix seconds) at this history version.
    private var todayKept: (day: Int32, from: Int64, end: Int64, version: UInt64)?

    /// Encodes the state as a backup file (`GET /backup`): storage's, handed in by `Server.make`.
    package typealias BackupEncoder = @Sendable (_ ledger: StockLedger, _ lsn: UInt64, _ takenAt: Int64) -> [UInt8]
    let backupEncoder: BackupEncoder?
    /// The last backup and the journal position it holds, answered again until the journal moves
    /// (`backup()`): a repeated `GET /backup` costs no second encoding of an unchanged store.
    var lastBackup: (lsn: UInt64, bytes: [UInt8])?

    /// A store over `ledger`; with a `journal` (see `Server.make`), `history` holds the changes
    /// recovered from it, and the journal is compacted past `compactAfter` bytes.
    package init(executor: LoopExecutor, ledger: StockLedger, journal: (any ChangeJournal)?, history: EventHistory? = nil,
         compactAfter: Int = 64 << 20, lostSalesPerMinute: Int = LostSalesAllowance.defaultPerMinute,
         storeID: String = StoreID.fresh(), backupEncoder: BackupEncoder? = nil) {
        self.backupEncoder = backupEncoder
        self.lostSales = LostSalesAllowance(perMinute: lostSalesPerMinute)
        self.executor = executor
        self.storeID = storeID
        self.menu = ledger.menu
        self.ledger = ledger
        self.journal = journal
        self.history = history ?? EventHistory(for: ledger.menu)
        self.compactAfter = compactAfter
    }

    package func setWallClock(_ clock: @escaping @Sendable () -> Int64) {
        wallClock = clock
    }

    /// Runs commands in order, telling `answer` each one's outcome as it is decided, with `out`
    /// (a codec words it straight into its connection's output, which it passes here: the
    /// codec's own closure is called, with nothing around it). `peer` is the client's address
    /// as the loop knows it ("10.0.0.7:5000"): its key-memory share and lost-sales allowance are
    /// its group's (`PeerAddress.group`: an IPv6 client by its /64), worked out only for a write
    /// that needs them. Returns the journal position the answers wait for and the changes to
    /// broadcast once they are queued. An array, not any sequence: a generic call from another
    /// module runs unspecialized, and every protocol calls this from its own.
    package func run(_ commands: [StoreCommand], peer: String, role: ClientRole = .anonymous, group: String? = nil,
                     into out: inout [UInt8], answer: (StoreOutcome, inout [UInt8]) -> Void) -> RunEnd {
        var client = ClientOf(peer: peer, role: role, group: group)
        for command in commands { answer(apply(command, client: &client), &out) }
        journal?.flush()
        compactIfDue()
        let end = RunEnd(lsn: lastLSN, events: changes)
        changes = []  // not removeAll(keepingCapacity:), which would copy the array `end` shares
        return end
    }

    private func apply(_ command: StoreCommand, client: inout ClientOf) -> StoreOutcome {
        switch command {
        case .order(let request):
            // A revoked till's writes are refused, its retries too: nothing from it applies.
            if client.isRevoked(in: ledger.tills) { return .write(.tillRevoked) }
            // A retry of a keyed write the store holds changes nothing: it gets its first outcome.
            if isNew(request.key, &client), let why = journal?.refusal() { return .write(.unavailable(why)) }
            return .write(order(request, client: &client))
        case .restock(let fruit, let amount, let key), .set(let fruit, let amount, let key):
            if client.isRevoked(in: ledger.tills) { return .write(.tillRevoked) }
            if isNew(key, &client), let why = journal?.refusal() { return .write(.unavailable(why)) }
            let now = wallClock(), scope = client.writer.keyScope
            let outcome = if case .restock = command {
                ledger.restock(fruit: fruit, amount: amount, key: key, in: scope, at: now)
            } else {
                ledger.set(fruit: fruit, amount: amount, key: key, in: scope, at: now)
            }
            if let change = outcome.change { applied(change, at: now, by: client.writer) }
            return .write(outcome)
        case .void(let request):
            if client.isRevoked(in: ledger.tills) { return .write(.tillRevoked) }
            if isNew(request.key, &client), let why = journal?.refusal() { return .write(.unavailable(why)) }
            return .write(void(request, client: &client))
        case .pair(let code):
            return .tills(pair(code: code))
        case .tills(let request):
            return .tills(tills(request))
        case .stock(let fruit):
            return .stock(seq: ledger.seq, stock: ledger.stock, only: fruit)
        case .since(let after, let store):
            return .since(catchUpPlan(after: after, store: store))
        case .stats:
            return .stats(ledger, journal: journal?.counts)
        case .report(let day):
            return .report(report(day: day))
        }
    }

    /// Unkeyed, or a key the store does not hold: a write that would change something.
    private func isNew(_ key: String?, _ client: inout ClientOf) -> Bool {
        guard let key else { return true }
        return ledger.keys[key, in: client.writer.keyScope] == nil
    }

    /// Past `compactAfter` bytes of journal, the ledger becomes the snapshot and a new journal
    /// is started (`GroupCommit.compact`). The store decides when, because the snapshot is its
    /// state: after a run of commands, with every record of it appended.
    private func compactIfDue() {
        guard let journal, journal.journalBytes >= compactAfter, journal.canCompact else { return }
        journal.compact(ledger)
    }

    /// Why the store refuses changes (a full disk), or nil: for `/healthz`, `/state`, `/metrics`.
    package var readOnly: String? { journal?.readOnly }

    private func order(_ request: OrderRequest, client: inout ClientOf) -> WriteOutcome {
        let now = wallClock()
        // The client's group and its lost-sales allowance are worked out only for a keyed order
        // or a refusal: an order that sells needs neither.
        var counted = false
        // Who wrote it only where that is used (a key's scope, a journal record): an anonymous
        // client's is its address group, worked out from its peer, which an unkeyed order in
        // memory never needs (it showed in S1's CPU per order).
        let writer = request.key != nil || journal != nil ? client.writer : client.writerWithoutAddress
        // Today's sales (what a VOID may name) and the till's day need who sold it: a till or the
        // manager as itself, an anonymous client as its address group only when the journal
        // needs it anyway (`writer`), else unknown.
        let outcome = ledger.order(request, in: writer.keyScope, seller: writer, at: now) {
            counted = lostSales.allows(request.count, from: client.host, now: now)
            return counted
        }
        switch outcome {
        case .applied(let change):
            minutes.record(served: true, at: now)
            applied(change, at: now, by: writer)
        case .outOfStock(_, let had):
            if counted {
                lostSales.spend(request.count, from: client.host, now: now)
                minutes.record(served: false, at: now)
            }
            // An uncounted refusal changed nothing but its key: without one, nothing to keep.
            if counted || request.key != nil {
                journal?.append { JournalRecord(refusing: request, had: had, lsn: $0, menu: menu, time: now, counted: counted, by: writer) }
            }
        default:
            break
        }
        return outcome
    }

    /// VOID: the manager (or anyone, without a token) voids any sale of today; a till only its
    /// own, within `VoidAuthority.defaultWindowSeconds` (10 minutes, PROTOCOL.md "VOID").
    private func void(_ request: VoidRequest, client: inout ClientOf) -> WriteOutcome {
        let now = wallClock(), writer = client.writer
        let authority: VoidAuthority = if case .till(let till) = client.role { .till(till, windowSeconds: VoidAuthority.defaultWindowSeconds) } else { .anySale }
        let outcome = ledger.void(request, by: writer, authority: authority, at: now)
        if let change = outcome.change { applied(change, at: now, by: writer) }
        return outcome
    }

    /// A change was applied in memory: journal it, keep it in the history, and broadcast it
    /// once the run's answers are queued.
    private func applied(_ change: Change, at now: Int64, by writer: Writer) {
        let lsn = journal?.append { JournalRecord(change, lsn: $0, menu: menu, time: now, by: writer) } ?? 0
        history.append(seq: change.seq, touched: change.touched)
        changes.append(StockEvent(change, lsn: lsn))
    }

    /// Where a client that saw seq `after` resumes; one that saw none (nil: a browser without
    /// `Last-Event-ID`) starts from the full state. `store`: the store that seq belongs to, if
    /// it said (another store's seq gets the full state, whatever it is).
    package func catchUpPlan(after: UInt64?, store: String?) -> CatchUpPlan {
        let current = ledger.seq
        guard let after else { return CatchUpPlan(after: 0, current: current, start: .fullState(fullState)) }
        let start: CatchUpPlan.Start
        if let store, store != storeID {
            start = .fullState(fullState)
        } else if after == current {
            start = .upToDate
        } else if history.reaches(after: after, current: current) {
            // Not built here: up to 10,000 events, times every SINCE a client pipelines, is
            // what let one unread client balloon the server. The server streams them.
            start = .stream
        } else {
            start = .fullState(fullState)
        }
        return CatchUpPlan(after: after, current: current, start: start)
    }

    /// Every fruit and its stock now: the full-state event.
    package var fullState: [FruitValue] {
        ledger.stock.enumerated().map { FruitValue(fruit: $0.offset, value: $0.element) }
    }

    /// The report of one business day (nil: today), by the clock now: computed once per change
    /// and shared (`ReportCache`).
    package func report(day: Int32?) -> DayReport {
        let today = self.today
        let day = day ?? today
        guard case .report(let report) = cachedReport(.day(day), today: today, { .report(dayReport($0, day: day, today: today).worded()) }) else {
            preconditionFailure("a day report's entry holds its values")
        }
        return report
    }

    /// The report of `day` from `history`, with each paired till's sales that day.
    package func dayReport(_ history: SalesHistory, day: Int32, today: Int32) -> DayReport {
        var report = history.report(day: day, today: today)
        report.tills = ledger.tills.sales(on: day).sorted { $0.key < $1.key }.map { id, sales in
            DayReport.TillDay(till: id, name: ledger.tills.till(id)?.name ?? "Till \(id)", sales: sales)
        }
        return report
    }

    /// A report's answer under `kind` (its parameters resolved) and `today`: the one kept since
    /// the history last changed, or computed now from the history (and counted in `work`).
    package func cachedReport(_ kind: ReportCache.Kind, today: Int32, _ compute: (SalesHistory) -> ReportCache.Value) -> ReportCache.Value {
        let history = ledger.history
        return reports.value(ReportCache.Key(kind: kind, today: today), version: history.version,
                             computed: work.countExpensive) { compute(history) }
    }

    /// The business day now. Asked for every report (it is in the cache's key), and asking the
    /// zone for its offset costs more than answering a kept report, so the day is kept until its
    /// slot ends (or the clock goes back, or the history, which holds the calendar, changes).
    package var today: Int32 {
        let now = wallClock(), version = ledger.history.version
        if let kept = todayKept, kept.version == version, now >= kept.from, now < kept.end { return kept.day }
        let (slot, end) = ledger.history.calendar.slotAndEnd(at: now)
        todayKept = (slot.day, now, end, version)
        return slot.day
    }

    /// The figures of the manager's views (`/sales`, `/metrics`), read now. They include the
    /// latest changes, also those whose journal write is still under way: a caller that must show
    /// only durable figures (as the line replies do) waits until `durableLSN` reaches the
    /// `lastLSN` read with them.
    package func salesSnapshot() -> SalesValues {
        SalesValues(menu: menu, seq: ledger.seq, ordersServed: ledger.ordersServed, ordersRefused: ledger.ordersRefused,
                    stock: ledger.stock, sold: ledger.sold, lost: ledger.lost, short: ledger.short,
                    perMinute: minutes.window(at: wallClock()),
                    journal: journal?.counts, money: ledger.money)
    }
}

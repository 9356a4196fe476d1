import JuiceCore

/// The client's side of stock sync as a pure state machine: feed it every line the connection
/// receives that belongs to it (replies to the queries it asked, every `EVENT STOCK`), tell
/// it when a connection opens; it keeps the shop's state and says what to send and what to report.
/// No sockets, so the resume rules are tested line by line (juice-board's SessionTests).
///
/// Why the rules look the way they do:
/// - Replies come in command order, so a FIFO of its queries tells what each reply answers.
/// - Events may interleave with replies at any point. Until the base reply (`OK STOCK` on a first
///   connect, `OK SINCE` on a reconnect) has arrived they are held back: an event seen before
///   `OK SINCE` may be repeated after it, and applying it early would make the replayed changes
///   before it look like duplicates, i.e. lose them.
/// - After the base, an event whose seq <= the applied seq is a duplicate and is ignored; an event
///   naming every fruit is a full snapshot and replaces the stock.
/// - `OK SINCE <s> <current>` with current < s means a different or wiped store: the full
///   snapshot that follows is taken even though its seq is lower.
/// - A server that names its store (`store=<id>` in `EVENT HELLO`) is asked `SINCE <s>
///   store=<id of the store our state came from>`; when the greeting names another store, the
///   server answers with one full-state event, which is taken whatever its seq (a resync).
public struct StockSync: Sendable {
    /// What the sync asks the server, each answered by one reply (never a change to the store).
    enum Query: Equatable, Sendable {
        case menu, aliases, stock, since(Int, store: String?), ping

        var line: String {
            switch self {
            case .menu: return "MENU"
            case .aliases: return "MENU ALIASES"
            case .stock: return "STOCK"
            case .since(let seq, let store): return "SINCE \(seq)" + (store.map { " store=" + $0 } ?? "")
            case .ping: return "PING"
            }
        }
    }

    /// What the connection must do after a line.
    public struct Output: Sendable, Equatable {
        /// Command lines to send, in order (without line endings).
        public var commands: [String] = []
        /// What to report, in order.
        public var updates: [ShopUpdate] = []
        /// Close the connection and reconnect (the server said BYE, or replies are out of step).
        public var disconnect = false
        /// Why, for a log.
        public var note: String? = nil
        public init() {}
    }

    public private(set) var menu: Menu? = nil
    public private(set) var aliases: MenuAliases = .none
    public private(set) var fruits: [String] = []
    public private(set) var stock: [String: Int] = [:]
    /// The seq of the last change applied; nil until the first snapshot arrived.
    public private(set) var seq: Int? = nil
    /// The store the state came from (its greeting's `store=`); nil from a server without ids.
    public private(set) var store: String? = nil
    /// The store the current connection's greeting named.
    private var greetedStore: String? = nil
    /// Queries sent and not yet answered, in the order their replies will come.
    private var pending: [Query] = []
    private var started = false
    /// Base replies (STOCK / SINCE) still outstanding; events wait while > 0.
    private var awaitingBase = 0
    private var heldEvents: [StockUpdate] = []
    private var acceptLowerFullSnapshot = false
    private var online = false
    private var lastEmitted: StockUpdate? = nil
    /// Bound on events held before the base reply; in practice they are all repeats anyway.
    private let maxHeldEvents = 100_000

    public init() {}

    /// The whole state, once a menu and a snapshot have arrived.
    public var state: ShopState? {
        guard let menu, let seq else { return nil }
        return ShopState(menu: menu, aliases: aliases, fruits: fruits, stock: stock, seq: seq)
    }

    public var isSynced: Bool { started && awaitingBase == 0 && seq != nil }

    /// A new connection is up (or was lost): nothing asked on the old one is still owed.
    public mutating func connectionOpened() {
        pending.removeAll()
        heldEvents.removeAll()
        started = false
        online = false
        awaitingBase = 0
        acceptLowerFullSnapshot = false
        greetedStore = nil
    }

    /// The connection's greeting (the text after `EVENT HELLO `): which store it serves.
    public mutating func greeted(_ text: String) {
        greetedStore = WireReader.store(hello: text)
    }

    /// The connection greeted us: the commands that (re)start the sync. Empty if already started.
    public mutating func start() -> [String] {
        guard !started else { return [] }
        started = true
        var out = Output()
        awaitingBase = 1
        send([.menu, .aliases, seq.map { .since($0, store: store) } ?? .stock], &out)
        return out.commands
    }

    /// A keepalive: the caller sends the returned line; its `OK PONG` is expected in turn.
    public mutating func ping() -> String {
        pending.append(.ping)
        return Query.ping.line
    }

    /// Digests one received line (a greeting starts the sync).
    public mutating func receive(_ line: ServerLine) -> Output {
        var out = Output()
        switch line {
        case .hello(let text):
            greeted(text)
            out.commands = start()
        case .bye(let reason):
            out.disconnect = true
            out.note = "server said BYE \(reason)"
        case .stockEvent(let update):
            if awaitingBase > 0 || !started {
                if heldEvents.count < maxHeldEvents { heldEvents.append(update) }
            } else {
                applyEvent(update, &out)
            }
        case .otherEvent, .unknown:
            break
        case .ok(let verb, let fields):
            reply(ok: true, verb: verb, fields: fields, errText: nil, &out)
        case .err(let code, let message):
            reply(ok: false, verb: "", fields: [], errText: "\(code) \(message)", &out)
        }
        return out
    }

    private mutating func send(_ queries: [Query], _ out: inout Output) {
        pending.append(contentsOf: queries)
        out.commands.append(contentsOf: queries.map(\.line))
    }

    private mutating func reply(ok: Bool, verb: String, fields: [Substring], errText: String?, _ out: inout Output) {
        guard !pending.isEmpty else { return } // a reply to nothing: ignore it
        let query = pending.removeFirst()
        if ok, !Self.reply(verb: verb, fields: fields, answers: query) {
            out.disconnect = true
            out.note = "reply OK \(verb) does not answer \(query.line); reconnecting"
            return
        }
        switch query {
        case .menu:
            guard ok, let newMenu = WireReader.menu(fields: fields), newMenu != menu else { break }
            let hadMenu = menu != nil
            menu = newMenu
            // The menu changed while we were away: the fruits may have too, so take a fresh
            // snapshot rather than trusting the old fruit list.
            if hadMenu, seq != nil, pending.contains(where: { if case .since = $0 { true } else { false } }) {
                awaitingBase += 1
                send([.stock], &out)
            }
        case .aliases:
            aliases = ok ? MenuAliases.parse(fields: Array(fields.dropFirst())) : .none
        case .stock:
            guard ok, let snapshot = StockUpdate.parse(fields: fields) else {
                out.disconnect = true
                out.note = "STOCK failed: \(errText ?? "unreadable reply"); reconnecting"
                return
            }
            acceptLowerFullSnapshot = false // a STOCK reply is itself the fresh full picture
            replaceStock(with: snapshot)
            store = greetedStore
            emitIfChanged(full: true, changed: [:], &out)
            baseArrived(after: snapshot.seq, &out)
        case .since(let from, _):
            guard ok else {
                // A server without SINCE (or one that refused it): fall back to a full snapshot.
                send([.stock], &out)
                return
            }
            let current = WireReader.since(fields: fields).map { Int(clamping: $0.current) }
            if let current, current < from { acceptLowerFullSnapshot = true }
            // Another store: the server sends its whole state next (rule 3), whatever the seqs.
            if let store, let greetedStore, store != greetedStore { acceptLowerFullSnapshot = true }
            baseArrived(after: current ?? from, &out)
        case .ping:
            break
        }
    }

    private static func reply(verb: String, fields: [Substring], answers query: Query) -> Bool {
        switch query {
        case .menu: return verb == "MENU" && fields.first != "ALIASES"
        case .aliases: return verb == "MENU" && fields.first == "ALIASES"
        case .stock: return verb == "STOCK"
        case .since: return verb == "SINCE"
        case .ping: return verb == "PONG"
        }
    }

    /// A base reply arrived: events held until now that are not covered by it are applied.
    private mutating func baseArrived(after baseSeq: Int, _ out: inout Output) {
        awaitingBase = max(0, awaitingBase - 1)
        guard awaitingBase == 0 else { return }
        if !online {
            online = true
            out.updates.append(.online)
        }
        let held = heldEvents
        heldEvents.removeAll()
        for update in held where update.seq > baseSeq {
            applyEvent(update, &out)
        }
    }

    private mutating func applyEvent(_ update: StockUpdate, _ out: inout Output) {
        let full = isFullSnapshot(update)
        let changed = Dictionary(update.values.map { ($0.fruit, $0.count) }, uniquingKeysWith: { _, last in last })
        if acceptLowerFullSnapshot, full {
            acceptLowerFullSnapshot = false
            replaceStock(with: update)
            store = greetedStore
            emitIfChanged(full: true, changed: changed, &out)
            return
        }
        guard let seq, update.seq > seq else { return } // a duplicate
        if full {
            replaceStock(with: update)
            emitIfChanged(full: update.seq != seq + 1, changed: changed, &out)
            return
        }
        for (fruit, count) in update.values {
            if stock[fruit] == nil, !fruits.contains(fruit) { fruits.append(fruit) }
            stock[fruit] = count
        }
        self.seq = update.seq
        if update.seq > seq + 1 {
            // A gap the protocol promises never happens: resynchronise rather than report
            // numbers that may be stale.
            awaitingBase += 1
            send([.stock], &out)
            out.note = "gap after seq \(seq) (got \(update.seq)); taking a fresh STOCK"
            return
        }
        emitIfChanged(full: false, changed: changed, &out)
    }

    /// True when `update` names every fruit we hold: such an event is a full snapshot.
    private func isFullSnapshot(_ update: StockUpdate) -> Bool {
        guard !fruits.isEmpty else { return false }
        let named = Set(update.values.map(\.fruit))
        return fruits.allSatisfy(named.contains)
    }

    private mutating func replaceStock(with snapshot: StockUpdate) {
        fruits = snapshot.values.map(\.fruit)
        stock = Dictionary(snapshot.values.map { ($0.fruit, $0.count) }, uniquingKeysWith: { _, last in last })
        seq = snapshot.seq
    }

    /// Reports the state if it differs from the last one reported: the first as `.full`, a
    /// replacement as `.full(resync: true)`, a next-seq change as `.change`.
    private mutating func emitIfChanged(full: Bool, changed: [String: Int], _ out: inout Output) {
        guard let state, state.snapshot != lastEmitted else { return }
        let first = lastEmitted == nil
        lastEmitted = state.snapshot
        out.updates.append(full || first ? .full(state, resync: !first) : .change(seq: state.seq, changed: changed, state: state))
    }
}

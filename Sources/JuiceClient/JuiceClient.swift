import Dispatch
import JuiceCore
import Synchronization

/// A client of juice-server, for tills, kiosks and displays. It connects lazily and reconnects
/// by itself; every call from any number of tasks goes out on one connection, pipelined, and each
/// caller gets its own reply (the protocol answers in order).
///
/// ```swift
/// let shop = JuiceClient(host: "127.0.0.1", port: 7878, managerToken: nil)
/// let sale = try await shop.order("mango-kiwi", count: 2)   // .made(seq:stock:amount:) or .outOfStock(needs:has:)
/// try await shop.void(sale: 1, reason: .wrongJuice)          // the fruit back, the amount reversed
/// let prices = try await shop.prices()                       // the menu's prices: ₩11,000 before the tap
/// try await shop.restock("mango", 5); try await shop.set("kiwi", 10)
/// let now = try await shop.state()                           // menu, stock, seq, canMake
/// for await update in shop.stock() { ... }                   // the full state first, then every change
/// ```
///
/// - Orders are applied exactly once: each carries a key, and one whose connection dropped
///   before its reply is sent again with the same key once the client is back (the server
///   answers a repeat with the original reply). It throws only when the server stayed
///   unreachable for `Configuration.retryBound`, with `JuiceError.orderInDoubt(key:reason:)`.
/// - `stock()` is gap-free: after a reconnect it resumes with `SINCE`, and when the server cannot
///   reach back it yields the whole state again, marked `resync`.
/// - I/O runs on a Dispatch queue of the client's own, reading a non-blocking socket: no thread
///   waits, and no concurrency thread is ever blocked.
///
/// Keep the client alive while you use it: `close()`, or releasing it, ends the connection, fails
/// the calls still waiting with `JuiceError.closed` and finishes every `stock()` stream.
public final class JuiceClient: Sendable {
    /// How the client connects and how long it keeps trying.
    public struct Configuration: Sendable {
        public var host: String
        public var port: UInt16
        /// Sent with `AUTH` on every connection, for RESTOCK and SET.
        public var managerToken: String?
        /// The credential of a paired till (``PairedTill/credential``, from ``JuiceClient/pair(code:)``):
        /// sent as `TILL <credential>` first on every connection. A server with a manager token
        /// takes orders only from a paired till (or the manager). Keep it as you would a password.
        public var tillCredential: String?
        /// How long a call may wait for the server to come back before it throws (seconds).
        public var retryBound: Double = 30
        /// The key of an order the caller gives none: `<keyPrefix>-<counter>`. Unique per client
        /// by default; a till that restarts should give its own (see juice-till's `--till-id`).
        public var keyPrefix: String
        public var backoffInitial = 0.1
        public var backoffCap = 3.0
        public var connectTimeout = 5.0
        /// A quiet server is asked for a PING after this long, and dropped after the second.
        public var pingAfterSilence = 10.0
        public var dropAfterSilence = 25.0

        public init(host: String = "127.0.0.1", port: UInt16 = 7878, managerToken: String? = nil) {
            self.host = host
            self.port = port
            self.managerToken = managerToken
            keyPrefix = JuiceClient.randomKeyPrefix()
        }
    }

    let engine: Engine
    private let counters = Mutex((key: 0, stream: 0))

    public init(configuration: Configuration) {
        engine = Engine(configuration: configuration)
    }

    public convenience init(host: String = "127.0.0.1", port: UInt16 = 7878, managerToken: String? = nil) {
        self.init(configuration: Configuration(host: host, port: port, managerToken: managerToken))
    }

    deinit {
        engine.queue.async { [engine] in engine.close() }
    }

    /// Ends the connection and every stream; calls still waiting throw `JuiceError.closed`.
    public func close() {
        engine.queue.async { [engine] in engine.close() }
    }

    /// Orders `count` (1–1000) of `juice` (a name or alias). `key` makes it idempotent: by default
    /// the client's own prefix and counter; give your own to retry an order in doubt.
    /// Cancelling the task after the order went out throws `JuiceError.orderInDoubt(key:reason:)`
    /// (not CancellationError): it may have been applied, and `key` retries it exactly once.
    /// A juice that is not one name (a space, CR/LF or other control character), a count out of
    /// range or a key the server would refuse throws `JuiceError.badArgument` and sends nothing.
    public func order(_ juice: String, count: Int = 1, key: String? = nil) async throws -> OrderResult {
        let key = key ?? nextKey()
        try Arguments.name(juice, "the juice")
        try Arguments.number(count, in: 1...Limits.maxOrderCount, "count")
        try Arguments.key(key)
        let reply = try await call("ORDER \(juice) \(count) key=\(key)", kind: .order(key: key))
        switch reply {
        case .ok("ORDER", let fields):
            guard let made = WireReader.order(fields: fields) else { throw JuiceError.unexpectedReply("OK ORDER \(fields.joined(separator: " "))") }
            return .made(seq: made.update.seq, stock: Self.stock(made.update), amount: made.amount)
        case .err("OUT_OF_STOCK", let message):
            guard let short = WireReader.outOfStock(message: message) else { throw JuiceError.outOfStock(message) }
            return .outOfStock(needs: short.needs, has: short.has)
        default:
            throw Self.failure(reply)
        }
    }

    /// Adds `amount` of `fruit`; returns the new seq and total. Needs the manager token when the
    /// server has one (`JuiceError.forbidden`). A fruit that is not one name, an amount out of
    /// 1...1_000_000_000 or a token that is not one word throws `.badArgument`, sending nothing.
    @discardableResult
    public func restock(_ fruit: String, _ amount: Int) async throws -> (seq: Int, total: Int) {
        try Arguments.name(fruit, "the fruit")
        try Arguments.number(amount, in: 1...Limits.maxStock, "amount")
        return try await change("RESTOCK \(fruit) \(amount)")
    }

    /// Sets `fruit` to `amount` (0...1_000_000_000); returns the new seq and value. Checked as
    /// `restock` is.
    @discardableResult
    public func set(_ fruit: String, _ amount: Int) async throws -> (seq: Int, total: Int) {
        try Arguments.name(fruit, "the fruit")
        try Arguments.number(amount, in: 0...Limits.maxStock, "amount")
        return try await change("SET \(fruit) \(amount)")
    }

    /// The whole state now: menu, aliases, stock and its seq.
    public func state() async throws -> ShopState {
        async let menuReply = call("MENU", kind: .read)
        async let aliasReply = call("MENU ALIASES", kind: .read)
        async let stockReply = call("STOCK", kind: .read)
        let (menuLine, aliasLine, stockLine) = try await (menuReply, aliasReply, stockReply)
        guard case .ok("MENU", let menuFields) = menuLine, let menu = WireReader.menu(fields: menuFields) else { throw Self.failure(menuLine) }
        var aliases = MenuAliases.none
        if case .ok("MENU", let fields) = aliasLine { aliases = MenuAliases.parse(fields: Array(fields.dropFirst())) }
        guard case .ok("STOCK", let fields) = stockLine, let stock = StockUpdate.parse(fields: fields) else { throw Self.failure(stockLine) }
        return ShopState(menu: menu, aliases: aliases, fruits: stock.values.map(\.fruit),
                         stock: Dictionary(stock.values.map { ($0.fruit, $0.count) }, uniquingKeysWith: { _, b in b }), seq: stock.seq)
    }

    /// The server's counters (`STATS`), read against its menu: clients, uptime, seq, orders
    /// served and refused, juices sold and lost per juice (menu order), refusals each fruit was
    /// short in (fruit order), remembered keys and the journal's counters.
    public func stats() async throws -> Stats {
        async let menuReply = call("MENU", kind: .read)
        async let statsReply = call("STATS", kind: .read)
        let (menuLine, statsLine) = try await (menuReply, statsReply)
        guard case .ok("MENU", let menuFields) = menuLine, let menu = WireReader.menu(fields: menuFields) else { throw Self.failure(menuLine) }
        guard case .ok("STATS", let fields) = statsLine, let stats = WireReader.stats(fields: fields, menu: menu) else { throw Self.failure(statsLine) }
        return stats
    }

    /// The stock, live. What a stream yields, in order:
    /// - `.full` always comes first. A stream started while the server is down yields nothing
    ///   until the server answers (the client keeps reconnecting); one started while the client
    ///   already holds a state gets that state at once, then `.offline` if it is not in step now.
    /// - then every change in seq order with no gap and no repeat;
    /// - `.offline` when the connection is lost (again for each failed reconnect attempt), and
    ///   `.online` when it is back in step: only around a real outage, never after the first
    ///   `.full` of a stream that was never offline;
    /// - `.full(resync: true)` whenever the client could not resume with the changes it missed
    ///   (another or a wiped store, a history that no longer reaches back, a new menu).
    ///
    /// Many streams share the client's one connection. It ends when the client is closed or
    /// released.
    public func stock() -> AsyncStream<ShopUpdate> {
        let id = counters.withLock { $0.stream += 1; return $0.stream }
        let (stream, continuation) = AsyncStream<ShopUpdate>.makeStream(bufferingPolicy: .bufferingOldest(10_000))
        continuation.onTermination = { [engine] _ in engine.queue.async { engine.unsubscribe(id) } }
        engine.queue.async { [engine] in engine.subscribe(id, continuation) }
        return stream
    }

    // MARK: - Calls

    func nextKey() -> String {
        let n = counters.withLock { $0.key += 1; return $0.key }
        return "\(engine.configuration.keyPrefix)-\(n)"
    }

    private func change(_ line: String) async throws -> (seq: Int, total: Int) {
        // A bad token would never be sent (see Engine.ready); say why instead of FORBIDDEN.
        if let token = engine.configuration.managerToken { try Arguments.token(token) }
        let reply = try await call(line, kind: .change)
        guard case .ok(_, let fields) = reply else { throw Self.failure(reply) }
        guard let update = StockUpdate.parse(fields: fields), let value = update.values.first else {
            throw JuiceError.unexpectedReply("\(reply)")
        }
        return (update.seq, value.count)
    }

    /// Sends one line and waits for its reply. Cancelling the task throws at once: an order or
    /// change already sent throws `orderInDoubt(key:)`/`changeInDoubt`, anything else
    /// CancellationError; the reply, if the line went out, is read and dropped.
    func call(_ line: String, kind: Request.Kind) async throws -> ServerLine {
        let request = Request(line: line, kind: kind)
        let engine = engine
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                engine.queue.async {
                    request.continuation = continuation
                    engine.submit(request)
                }
            }
        } onCancel: {
            request.cancelled.withLock { $0 = true }
            engine.queue.async { engine.cancel(request) }
        }
    }

    /// How many replies were read and dropped because their caller was cancelled (for tests).
    var droppedReplies: Int {
        get async { await withCheckedContinuation { done in engine.queue.async { [engine] in done.resume(returning: engine.droppedReplies) } } }
    }

    /// The fruit values of a reply, by name.
    static func stock(_ update: StockUpdate) -> [String: Int] {
        Dictionary(update.values.map { ($0.fruit, $0.count) }, uniquingKeysWith: { _, b in b })
    }

    static func failure(_ reply: ServerLine) -> JuiceError {
        if case .err(let code, let message) = reply { return JuiceError(code: code, message: message) }
        return .unexpectedReply("\(reply)")
    }

    static func randomKeyPrefix() -> String {
        let alphabet = Array("abcdefghijklmnopqrstuvwxyz0123456789")
        return "c" + String((0..<10).map { _ in alphabet.randomElement()! })
    }
}

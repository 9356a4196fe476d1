import JuicePlatform
import Synchronization

/// What every actor of a run shares: where the server is, the signals between them, and the
/// ledger of what they observed.
final class RunState: Sendable {
    let server: ServerProcess
    /// The server's manager token (the run's own): for the setup, and what makes the server
    /// take writes only from paired tills and the manager.
    let managerToken: String
    let line: SocketAddress
    let http: SocketAddress
    let ledger = Ledger()
    /// The tills start no new order (each still finishes the one it has).
    let stopOrders = Atomic<Bool>(false)
    /// The tills stop retrying: what is still unanswered then is reported as such.
    let giveUpAt = Atomic<UInt64>(UInt64.max)
    let stopDisplay = Atomic<Bool>(false)
    /// The last seq the display applied.
    let displaySeq = Atomic<Int>(0)
    let stopFlood = Atomic<Bool>(false)
    /// Set by the conductor: the next till that writes an order kills the server right after
    /// the write, before it reads the answer (the moment an acknowledgement is most at risk).
    let killAtNextWrite = Atomic<Bool>(false)

    init(server: ServerProcess, managerToken: String) {
        self.server = server
        self.managerToken = managerToken
        let (linePort, httpPort) = server.ports
        line = SocketAddress(host: "127.0.0.1", port: UInt16(linePort))!
        http = SocketAddress(host: "127.0.0.1", port: UInt16(httpPort))!
    }

    var givingUp: Bool { monotonicNow() >= giveUpAt.load(ordering: .relaxed) }

    /// Called by a till right after it wrote an order.
    func orderWritten() {
        if killAtNextWrite.exchange(false, ordering: .relaxed), server.killNow() {
            ledger.update { $0.figures.killsAtWrite += 1 }
        }
    }
}

/// The figures a run reports besides the checks.
struct Figures: Sendable {
    var kills = 0
    var killsAtWrite = 0
    var ordersStarted = 0
    var attempts = 0
    /// Attempts beyond each order's first.
    var retries = 0
    /// Orders whose first received answer was a `dup`: applied by an attempt whose answer the
    /// kill took away.
    var dupAnswers = 0
    var tcpOrders = 0
    var httpOrders = 0
    /// Voids the tills started, and those whose first answer was a repeat (`dup`).
    var voidsStarted = 0
    var voidDupAnswers = 0
    /// Answers that said "not now" (BUSY, READ_ONLY, 503), by code.
    var notNow: [String: Int] = [:]
    var connectionLosses = 0
    var displayConnections = 0
    var displayRepeatsIgnored = 0
    /// Each flood's keyed orders sent and their answers by code, by flood ("anonymous", "till").
    var floodSent: [String: Int] = [:]
    var floodAnswers: [String: [String: Int]] = [:]
    var diskFills = 0
    /// Fills during which the store went read-only (a READ_ONLY answer came).
    var diskFillsReadOnly = 0
}

/// What the actors observed, behind one lock (a few thousand updates a second at most).
final class Ledger: Sendable {
    struct State: Sendable {
        var figures = Figures()
        var acknowledged: [AcknowledgedOrder] = []
        var voids: [AcknowledgedVoid] = []
        var unanswered: [String] = []
        var unexpected: [String] = []
        var display: [DisplayEvent] = []
        var unplannedExits: [String] = []
    }
    private let state = Mutex(State())

    func update<T>(_ body: (inout State) -> T) -> T { state.withLock { body(&$0) } }
    var snapshot: State { state.withLock { $0 } }
}

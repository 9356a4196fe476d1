import JuicePlatform

/// Drives every connection of a run from the calling thread: non-blocking sockets and one
/// level-triggered readiness set (epoll; kqueue on Darwin), no thread per connection. Reads and
/// writes live in LoadEngine+ReadWrite.swift, per-role behaviour (what a line means) in
/// LoadEngine+Lines.swift, the phases of a run in LoadRun.swift and IdleRun.swift.
final class LoadEngine {
    /// One recv() per readiness event reads up to this much.
    static let scratchSize = 256 * 1024
    /// A line longer than this means we are not speaking the protocol we think we are.
    static let maxLineLength = 1 << 20

    let endpoint: Endpoint
    let address: SocketAddress
    /// Where watchers connect (an event stream's HTTP port); the same as `endpoint` otherwise.
    let watcherEndpoint: Endpoint
    let watcherAddress: SocketAddress
    let wire: WireSettings
    let pipeline: Int
    let connectBurst: Int
    let epoll: BlockingPoller
    let scratch: UnsafeMutableRawPointer
    let progress: ProgressLine

    var connections: [Connection] = []
    private var connectQueue: [Int] = []
    private var connectQueueHead = 0
    /// Started but not ready yet (connecting, or reading greeting/setup replies).
    private(set) var connectsInProgress = 0
    private(set) var readyRequesters = 0
    private(set) var readyWatchers = 0
    private(set) var readyIdle = 0

    /// Set from inside event handling when the run cannot go on; `pump` throws it.
    var failure: BenchError?
    var losses = ConnectionLosses()
    /// HTTP requesters reconnected because the server ended keep-alive (`Connection: close`).
    var reconnects = 0
    var interrupted = false
    /// CPU time of juice-bench at the start of the measured window (captured by `pump`).
    var cpuAtWindowStart: CPUUsage?
    /// The server whose counters are read at the window's edges, and its reading at the start.
    var serverPid: Int32?
    var serverAtWindowStart: ServerSample?

    // Request/reply accounting (LoadEngine+Lines.swift).
    var sending = false
    var windowStart: Nanos = .max
    var windowEnd: Nanos = .max
    let latency = LatencyHistogram()
    var totalReplies = 0
    var windowReplies = 0
    var totalErrors = 0
    var windowErrors = 0
    var firstErrorReply: String?
    var unexpectedReplies = 0

    // Fan-out accounting: the send time of every request that should produce one event, in
    // send order; watchers attribute their k-th event to entry k.
    let recordsOrders: Bool
    let pacedFanout: Bool
    let checkSequence: Bool
    var orderSendTimes: [Nanos] = []
    let fanoutLatency = LatencyHistogram()
    var totalEvents = 0
    var windowEvents = 0
    var firstOrderSequence: UInt64?
    var lastOrderSequence: UInt64?
    var orderSequenceFaults = 0

    init(endpoint: Endpoint, watcherEndpoint: Endpoint? = nil, wire: WireSettings, pipeline: Int, connectBurst: Int,
         watchers: Int, pacedFanout: Bool, checkSequence: Bool, progress: ProgressLine) throws(BenchError) {
        self.endpoint = endpoint
        self.address = try endpoint.socketAddress()
        self.watcherEndpoint = watcherEndpoint ?? endpoint
        self.watcherAddress = try self.watcherEndpoint.socketAddress()
        self.wire = wire
        self.pipeline = pipeline
        self.connectBurst = connectBurst
        self.recordsOrders = watchers > 0
        self.pacedFanout = pacedFanout
        self.checkSequence = checkSequence
        self.progress = progress
        do { epoll = try BlockingPoller() } catch { throw BenchError.fatal("\(error)") }
        scratch = .allocate(byteCount: Self.scratchSize, alignment: 64)
    }

    deinit { scratch.deallocate() }

    // MARK: Connecting

    /// Creates `count` connections of `role` and queues them for connecting; at most
    /// `connectBurst` are in progress at once (so 10,000 connections do not overflow the
    /// server's accept backlog). Returns their tokens.
    @discardableResult
    func open(_ role: ConnectionRole, count: Int) -> Range<Int> {
        let first = connections.count
        var greetingLines = wire.greetingLines
        let handshakeLines: Int
        switch role {
        case .requester: handshakeLines = wire.setup.count
        case .watcher where wire.watcherFraming == .eventStream:
            // No greeting on HTTP; the "handshake" is the first message, the full state.
            greetingLines = 0
            handshakeLines = 1
        case .watcher: handshakeLines = wire.watchSetup.count * wire.watchSetupReplyLines
        case .idle: handshakeLines = wire.probe == nil ? 0 : 1
        }
        connections.reserveCapacity(first + count)
        for token in first..<(first + count) {
            connections.append(Connection(token: token, role: role, greetingLines: greetingLines,
                                          handshakeLines: handshakeLines, pipeline: pipeline))
            connectQueue.append(token)
        }
        startQueuedConnects()
        return first..<(first + count)
    }

    private func startQueuedConnects() {
        while connectsInProgress < connectBurst && connectQueueHead < connectQueue.count && failure == nil {
            let connection = connections[connectQueue[connectQueueHead]]
            connectQueueHead += 1
            do {
                connection.fd = try Socket.startConnect(to: connection.role == .watcher ? watcherAddress : address)
            } catch {
                failure = .fatal("cannot connect to \(endpoint(of: connection)): \(error.message)")
                return
            }
            connection.phase = .connecting
            connectsInProgress += 1
            // Writability reports the end of the non-blocking connect.
            epoll.add(connection.fd, token: connection.token, interest: BlockingPoller.writable)
        }
        if connectQueueHead == connectQueue.count && connectQueueHead > 0 {
            connectQueue.removeAll(keepingCapacity: false)
            connectQueueHead = 0
        }
    }

    private func finishConnect(_ connection: Connection) {
        let code = Socket.pendingError(connection.fd)
        guard code == 0 else {
            failure = .fatal("cannot connect to \(endpoint(of: connection)): \(errnoDescription(code))")
            return
        }
        if connection.reconnecting { return resumeAfterReconnect(connection) }
        connection.phase = .handshaking
        epoll.modify(connection.fd, token: connection.token, interest: BlockingPoller.readable)
        // Setup lines go out at once; their replies are read after the greeting.
        switch connection.role {
        case .requester: for line in wire.setup { connection.output.append(line.base, count: line.count) }
        case .watcher: for line in wire.watchSetup { connection.output.append(line.base, count: line.count) }
        case .idle: if let probe = wire.probe { connection.output.append(probe.base, count: probe.count) }
        }
        if !connection.output.isEmpty { flush(connection) }
        if connection.phase == .handshaking && connection.greetingLinesLeft == 0 && connection.handshakeLinesLeft == 0 {
            becomeReady(connection)
        }
    }

    func endpoint(of connection: Connection) -> Endpoint {
        connection.role == .watcher ? watcherEndpoint : endpoint
    }

    func becomeReady(_ connection: Connection) {
        connection.phase = .ready
        connectsInProgress -= 1
        switch connection.role {
        case .requester: readyRequesters += 1
        case .watcher: readyWatchers += 1
        case .idle: readyIdle += 1
        }
    }

    /// The server closed the connection, or the socket failed.
    func lose(_ connection: Connection, reason: String) {
        let phase = connection.phase
        epoll.remove(connection.fd)
        close(connection.fd)
        connection.fd = -1
        connection.phase = .closed
        if phase == .handshaking || phase == .connecting {
            connectsInProgress -= 1
            failure = .fatal("the server at \(endpoint(of: connection)) closed a new connection before it was ready (\(reason))")
            return
        }
        losses.record(reason)
    }

    // MARK: The loop

    /// Runs the event loop until `isDone()` or `deadline`; true if `isDone()` became true.
    /// Also ends (false) on SIGINT/SIGTERM, and throws a failure raised by event handling.
    func pump(until deadline: Nanos, _ isDone: () -> Bool) throws(BenchError) -> Bool {
        while true {
            if let failure { throw failure }
            if isDone() { return true }
            let now = monotonicNow()
            if now >= deadline { return false }
            if Interrupt.requested {
                interrupted = true
                return false
            }
            if cpuAtWindowStart == nil && now >= windowStart {
                cpuAtWindowStart = CPUUsage.ofThisProcess()
                serverAtWindowStart = serverPid.flatMap(ServerSample.read)
            }
            progress.tick(now: now, engine: self)
            // Short waits keep the window edges and progress line accurate when idle.
            let timeout = Int32(min(50, (deadline - now + 999_999) / 1_000_000))
            let ready = epoll.wait(timeoutMilliseconds: timeout)
            for index in 0..<ready {
                handle(token: epoll.token(at: index), flags: epoll.flags(at: index))
            }
            if connectsInProgress < connectBurst && connectQueueHead < connectQueue.count {
                startQueuedConnects()
            }
        }
    }

    @inline(__always)
    private func handle(token: Int, flags: UInt32) {
        let connection = connections[token]
        switch connection.phase {
        case .connecting:
            finishConnect(connection)
        case .handshaking, .ready:
            if flags & (BlockingPoller.readable | BlockingPoller.error | BlockingPoller.hangUp) != 0 {
                readAvailable(connection)
            }
            if flags & BlockingPoller.writable != 0 && connection.phase != .closed {
                flush(connection)
            }
        case .waitingToConnect, .closed:
            break
        }
    }
}

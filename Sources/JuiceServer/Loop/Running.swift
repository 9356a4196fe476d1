import Dispatch
import JuicePlatform
import JuiceCore

/// A running server's parts and its clients: the listener, the poller, the durability gate,
/// the output path, the fan-out, the line protocol and the idle reaper, wired together. It
/// lives in `Server.State.running`/`.draining` and only ever runs on the loop.
///
/// Where a second protocol plugs in: a connection's input goes to its protocol handler
/// (`read`), and everything after that — output path, fan-out, durability gate, closing — is
/// shared. An HTTP listener would be another `Acceptor` whose connections carry another kind
/// and go to their own handler in `read`.
final class Running: @unchecked Sendable {
    // @unchecked: loop-confined; created on and only touched from the loop queue.
    let acceptor: Acceptor
    /// The HTTP listener (`--http-port`), if any: the board, its event stream, the dashboard.
    let httpAcceptor: Acceptor?
    private let http: HTTPProtocol?
    /// Internal, not private: a test wraps it in one that refuses clients.
    var poller: any ClientPoller
    let gate: DurabilityGate
    private let output: OutputPath
    private let fanOut: FanOut
    private let lines: LineProtocol
    private let auth: ManagerAuth
    private var reaper: IdleReaper?
    private let store: FruitStore
    private let config: ServerConfig
    private(set) var connections: [UInt64: Connection] = [:]
    /// Connections per peer address, kept only with `--max-clients-per-address`.
    private var perAddress: [String: Int] = [:]
    private var nextID: UInt64 = 1
    /// False once shutdown began: line clients are refused, HTTP answers 503.
    private(set) var accepting = true
    /// One receive buffer for every client: input is framed straight out of it.
    private let readBuffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 * 1024, alignment: 16)
    /// Told whenever a connection closed (a draining server may be done).
    var onClose: () -> Void = {}

    init(config: ServerConfig, store: FruitStore, durableLSN: UInt64, queue: DispatchQueue, startedAt: UInt64) throws(SystemError) {
        self.config = config
        self.store = store
        acceptor = try Acceptor(host: config.host, port: config.port, queue: queue)
        httpAcceptor = try config.httpPort.map { port throws(SystemError) in try Acceptor(host: config.host, port: port, queue: queue) }
        poller = try ClientPollers.make(queue: queue)
        gate = DurabilityGate(durableLSN: durableLSN)
        output = OutputPath(poller: poller, gate: gate, maxOutputBytes: config.maxOutputBytes)
        // Everything recovered is on disk: a catch-up may run up to it.
        fanOut = FanOut(queue: queue, output: output, menu: config.menu, seq: store.assumeIsolated { $0.ledger.seq })
        auth = ManagerAuth(token: config.managerToken, policy: config.authFailurePolicy, clock: config.authClock)
        let session = SessionCommands(menu: config.menu, auth: auth)
        lines = LineProtocol(store: store, menu: config.menu, session: session, output: output, fanOut: fanOut)
        let (output, fanOut, auth) = (output, fanOut, auth)
        http = httpAcceptor.map { _ in
            HTTPProtocol(store: store, output: output, fanOut: fanOut, routes: HTTPRoutes(store: store, auth: auth), queue: queue)
        }
        if let seconds = config.idleTimeoutSeconds { reaper = IdleReaper(seconds: seconds, queue: queue) }

        output.onFailure = { [unowned self] conn, reason in close(conn, reason: reason) }
        fanOut.onWritten = { [unowned self] conn in written(conn) }
        lines.publish = { [unowned self] events in publish(events) }
        lines.finish = { [unowned self] conn in finishIfDone(conn) }
        lines.statsContext = { [unowned self] in StatsContext(clients: connections.count, startedAt: startedAt) }
        acceptor.onConnection = { [unowned self] fd, peer in accepted(fd: fd, peer: peer, kind: .line) }
        acceptor.clientCount = { [unowned self] in connections.count }
        httpAcceptor?.onConnection = { [unowned self] fd, peer in accepted(fd: fd, peer: peer, kind: .http) }
        httpAcceptor?.clientCount = { [unowned self] in connections.count }
        http?.routes.isDraining = { [unowned self] in !accepting }
        http?.routes.clientCounts = { [unowned self] in clientCounts }
        http?.finish = { [unowned self] conn in finishIfDone(conn) }
        http?.close = { [unowned self] conn, reason in close(conn, reason: reason) }
        reaper?.reap = { [unowned self] olderThan, seconds in closeIdle(olderThan: olderThan, seconds: seconds) }
    }

    deinit {
        readBuffer.deallocate()
    }

    func start() {
        poller.start { [weak self] in self?.pollClients() }
        acceptor.start()
        httpAcceptor?.start()
    }

    /// Line clients, and browsers holding an event stream (the rest are brief requests).
    var clientCounts: (line: Int, events: Int) {
        let events = http?.streams.count ?? 0
        let httpRequests = connections.values.reduce(0) { $0 + ($1.kind == .http ? 1 : 0) }
        return (connections.count - events - httpRequests, events)
    }

    // MARK: Accepting and reading

    private func accepted(fd: Int32, peer: String, kind: Connection.Kind) {
        let limit = config.maxClientsPerAddress
        let address = limit.map { _ in AuthFailureLimiter.address(ofPeer: peer) }
        var addressFull = false
        if let limit, let address { addressFull = perAddress[address, default: 0] >= limit }
        guard accepting || kind == .http, connections.count < config.maxClients, !addressFull else {
            if accepting {
                Log.warning(addressFull ? "refused \(peer): max clients per address (\(limit ?? 0)) reached"
                                        : "refused \(peer): max clients (\(config.maxClients)) reached", category: .busy)
            }
            refuse(fd, kind: kind, addressFull: addressFull)
            return
        }
        if let address { perAddress[address, default: 0] += 1 }
        Socket.configureClient(fd)
        let id = nextID
        nextID += 1
        let conn = Connection(id: id, fd: fd, peer: peer, kind: kind, isManager: config.managerToken == nil,
                              now: DispatchTime.now().uptimeNanoseconds)
        connections[id] = conn
        Log.info("connect \(peer)\(kind == .http ? " (HTTP)" : "") (clients: \(connections.count))", category: .connections)
        do {
            try poller.add(fd: fd, id: id)
        } catch {
            // Nothing would ever tell us this client is ready: it must go.
            Log.error("cannot watch \(peer): \(error); closing it")
            close(conn, reason: "cannot watch")
            return
        }
        switch kind {
        case .line: lines.greet(conn)
        case .http, .eventStream: http?.accepted(conn)
        }
    }

    /// BUSY (HTTP: 503) to a connection over a limit, then closed.
    private func refuse(_ fd: Int32, kind: Connection.Kind, addressFull: Bool) {
        let busy: [UInt8]
        switch (kind, addressFull) {
        case (.line, false): busy = Wire.busy
        case (.line, true): busy = Wire.busyForAddress
        case (_, false): busy = HTTPResponse.busy
        case (_, true): busy = HTTPResponse.busyForAddress
        }
        busy.withUnsafeBytes { _ = Socket.send(fd, $0) }
        // Discard what it already sent and end our side first: closing with unread input
        // would make the kernel reset the connection, which can destroy the answer.
        _ = Socket.receive(fd, into: readBuffer)
        Platform.shutdownWrite(fd)
        Platform.close(fd)
    }

    /// One batch of ready clients (the poller's source fired).
    private func pollClients() {
        _ = poller.poll { id, readable, writable, hangup in
            guard let conn = connections[id] else { return }
            if writable && output.flush(conn) { written(conn) }
            if conn.isClosed { return }
            if readable && conn.wantsInput {
                read(conn)
            } else if hangup {
                close(conn, reason: "hang-up")
            }
        }
    }

    private func read(_ conn: Connection) {
        switch Socket.receive(conn.fd, into: readBuffer) {
        case .done(let count):
            conn.lastInput = DispatchTime.now().uptimeNanoseconds
            let input = UnsafeRawBufferPointer(rebasing: readBuffer[0..<count])
            switch conn.kind {
            case .line: lines.received(conn, input)
            case .http, .eventStream: http?.received(conn, input)
            }
        case .wouldBlock:
            return
        case .closed:
            switch conn.kind {
            case .line: lines.inputEnded(conn)
            case .http, .eventStream: http?.inputEnded(conn)
            }
        case .failed(let code):
            close(conn, reason: code == ECONNRESET ? "reset by peer" : Platform.describe(code))
        }
    }

    /// Output went out: go on with what waited for it (and close a closing one once done).
    private func written(_ conn: Connection) {
        if conn.isFinishing {
            finishIfDone(conn)
        } else if conn.kind == .line {
            lines.carryOn(conn)
        } else {
            http?.carryOn(conn)
        }
    }

    // MARK: Changes and durability

    private func publish(_ events: [StockEvent]) {
        let ready = gate.admit(events)
        if !ready.isEmpty { fanOut.broadcast(ready, to: connections.values) }
    }

    /// The journal is on disk up to `lsn`: release what waited for it, replies before events.
    func journalDurable(upTo lsn: UInt64) {
        let ready = gate.durable(upTo: lsn) { fanOut.markDirty($0) }
        if !ready.isEmpty { fanOut.broadcast(ready, to: connections.values) }
    }

    // MARK: Closing

    /// A closing connection goes once everything it is owed has been written. Input it sent
    /// that we will never read is discarded first, and our side is shut down: closing a socket
    /// with unread input makes the kernel send a reset, which can destroy the last replies
    /// (an `ERR LINE_TOO_LONG`, an `OK BYE`) before the client reads them.
    private func finishIfDone(_ conn: Connection) {
        if conn.phase == .open || conn.phase == .inputEnded { conn.phase = .closing }
        output.updateInterest(conn)
        guard conn.phase == .closing, conn.outbox.isEmpty, fanOut.lastBroadcastSeq >= conn.eventsOwedThrough else { return }
        var discarded = 0
        while discarded < 1 << 20, case .done(let n) = Socket.receive(conn.fd, into: readBuffer) { discarded += n }
        Platform.shutdownWrite(conn.fd)
        close(conn, reason: nil)
    }

    func close(_ conn: Connection, reason: String?) {
        guard !conn.isClosed else { return }
        conn.phase = .closed
        connections.removeValue(forKey: conn.id)
        if config.maxClientsPerAddress != nil {
            let address = AuthFailureLimiter.address(ofPeer: conn.peer)
            perAddress[address, default: 1] -= 1
            if perAddress[address] == 0 { perAddress.removeValue(forKey: address) }
        }
        gate.forget(conn)
        http?.closed(conn)
        poller.removeAndClose(fd: conn.fd, id: conn.id)
        acceptor.descriptorFreed()
        Log.info("disconnect \(conn.peer)\(reason.map { " (\($0))" } ?? "") (clients: \(connections.count))", category: .connections)
        onClose()
    }

    private func closeIdle(olderThan: UInt64, seconds: Int) {
        // An event stream only listens by design: its liveness is TCP keepalive and its writes.
        for conn in connections.values where conn.kind != .eventStream && conn.lastInput < olderThan {
            close(conn, reason: "idle for more than \(seconds) s")
        }
    }

    // MARK: Shutdown

    /// Stops accepting and tells every client the server is going: each gets `EVENT BYE`
    /// after the replies it is owed (held until `gate` is durable), then closes.
    func beginDrain(byeAfter lsn: UInt64) {
        accepting = false
        acceptor.stop()
        reaper?.stop()
        // The HTTP listener stays until the end: `/healthz` answers 503 meanwhile, so a load
        // balancer sees the drain. Event streams just end (browsers reconnect by themselves).
        let bye = Wire.byeEvent
        for conn in connections.values {
            if conn.phase == .open || conn.phase == .inputEnded { conn.phase = .closing }
            if conn.kind == .line { output.send(conn, bye, waitingFor: lsn) }
            finishIfDone(conn)
        }
    }

    func closeAll(reason: String) {
        for conn in connections.values { close(conn, reason: reason) }
    }

    /// The server has stopped: no more readiness is watched.
    func stopPolling() {
        httpAcceptor?.stop()
        http?.stop()
        poller.cancel()
    }
}

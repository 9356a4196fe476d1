import Dispatch
import JuiceCore
import JuicePlatform
import JuiceLog

/// A running server's parts and its clients: the listeners, the poller, the durability gate,
/// the output path, the fan-out and the idle reaper, wired together. It lives in
/// `Server.State.running`/`.draining` and only ever runs on the loop.
///
/// It knows no protocol by name: each listener's protocol (a `ServedProtocol`, made from its
/// `LoopListing`) makes a session for each connection it accepts, and everything
/// around them — sockets, output path, fan-out, durability gate, closing — is shared.
package final class Running: ConnectionHost {
    // Loop-confined, not Sendable: created on and only touched from the loop queue.

    package struct Listener {
        package let name: String
        package let acceptor: Acceptor
        package let served: any ServedProtocol
    }

    package private(set) var listeners: [Listener] = []
    /// Internal, not private: a test wraps it in one that refuses clients.
    package var poller: any ClientPoller
    package let gate: DurabilityGate
    package let output: OutputPath
    private let passes: FlushPasses
    private let fanOut: FanOut
    private var reaper: IdleReaper?
    package let config: LoopConfig
    /// Internal stored fields (see `Connection` on exclusivity checks); others read `connections`.
    private(set) var table = ConnectionTable()
    package var connections: ConnectionTable { table }
    /// Who holds which slots: anonymous, on probation, known (`Running+Admission`).
    package var admission: Admission
    /// Connections on probation, and when (uptime nanoseconds) each must have signed in.
    package var probationDeadlines: [UInt64: UInt64] = [:]
    /// Their connections are counted per client by request, not at accept (one proxy carries
    /// many clients).
    package let proxies: TrustedProxies
    /// False once shutdown began: new connections are refused (unless their protocol answers
    /// them while draining, as HTTP does with 503).
    package private(set) var accepting = true
    /// One receive buffer for every client: input is framed straight out of it. 16 KiB per
    /// read, as Redis reads: a turn (`FairTurn`) runs only part of a big read anyway, and the
    /// rest is copied aside until its next turn, so a bigger read would only cost memory per
    /// client that pipelines (and more to search for HTTP's next request).
    package static let readSize = 16 * 1024
    private let readBuffer = UnsafeMutableRawBufferPointer.allocate(byteCount: Running.readSize, alignment: 16)
    /// Told whenever a connection closed (a draining server may be done).
    package var onClose: () -> Void = {}

    package init(config: LoopConfig, listings: [LoopListing], seq: UInt64, durableLSN: UInt64, queue: DispatchQueue) throws(SystemError) {
        self.config = config
        proxies = TrustedProxies(config.trustedProxies)
        admission = Admission(maxClients: config.maxClients, reserved: config.reservedClients, perAddress: config.maxClientsPerAddress,
                              probationPerAddress: config.probationPerAddress)
        var acceptors: [(LoopListing, Acceptor)] = []
        for listing in listings {
            guard let port = listing.port else { continue }
            acceptors.append((listing, try Acceptor(host: config.host, port: port, queue: queue)))
        }
        poller = try ClientPollers.make(queue: queue)
        gate = DurabilityGate(durableLSN: durableLSN)
        output = OutputPath(poller: poller, gate: gate, maxOutputBytes: config.maxOutputBytes)
        passes = FlushPasses(queue: queue, output: output)
        // Everything recovered is on disk: a catch-up may run up to it.
        fanOut = FanOut(output: output, passes: passes, seq: seq)
        reaper = IdleReaper(seconds: config.idleTimeoutSeconds, queue: queue)

        gate.fanOut = fanOut
        let handle = LoopHandle(output: output, fanOut: fanOut, passes: passes, gate: gate, queue: queue, host: self)
        for (listing, acceptor) in acceptors {
            let index = listeners.count
            let served = listing.make(handle)
            listeners.append(Listener(name: listing.name, acceptor: acceptor, served: served))
            fanOut.wordings.append(FanOut.Wording(served: served))
            acceptor.onConnection = { [unowned self] socket, peer in accepted(socket, peer: peer, listener: index) }
            acceptor.clientCount = { [unowned self] in table.count }
        }
        output.onFailure = { [unowned self] conn, reason in close(conn, reason: reason) }
        passes.onWritten = { [unowned self] conn in written(conn) }
        reaper?.reap = { [unowned self] olderThan, seconds in closeIdle(olderThan: olderThan, seconds: seconds) }
        reaper?.everySecond = { [unowned self] now in endProbations(now: now) }
        // The durable path (the journal tells the gate, wired by `Server.start`): the gate
        // releases held replies, which are written at once (direct write, as for any reply),
        // then broadcasts the events that may go.
        gate.released = { [unowned self] conn in if output.flush(conn) { written(conn) } }
    }

    deinit {
        readBuffer.deallocate()
    }

    package func start() {
        poller.start { [weak self] in self?.pollClients() }
        for listener in listeners { listener.acceptor.start() }
    }

    /// The port a protocol's listener got (the one its option asked for, or the pick for 0);
    /// nil if it is off.
    package func port(of name: String) -> Int? {
        listeners.first { $0.name == name }?.acceptor.port
    }

    package var clientCount: Int { table.count }
    package var isAccepting: Bool { accepting }

    // MARK: Accepting and reading

    private func accepted(_ socket: Socket, peer: String, listener index: Int) {
        let served = listeners[index].served
        let address = countedAddress(peer, served)
        let decision = admission.decide(address: address)
        guard accepting || served.acceptsWhileDraining, case .admit(let pool) = decision else {
            let perAddress = decision == .refuse(perAddress: true)
            if accepting {
                Log.warning(perAddress ? "refused \(peer): max clients per address (\(config.maxClientsPerAddress ?? 0)) reached"
                                       : "refused \(peer): max clients (\(config.maxClients)) reached", category: .busy)
            }
            refuse(socket, with: served.busyRefusal(perAddress: perAddress))
            return
        }
        socket.configureAsClient()
        let id = table.nextID
        let now = DispatchTime.now().uptimeNanoseconds
        let conn = Connection(id: id, socket: socket, peer: peer, listener: UInt8(index), now: now)
        conn.pool = pool
        conn.countedAddress = address
        admission.add(pool, address: address)
        if pool == .probation { probationDeadlines[id] = now + config.probationSeconds * 1_000_000_000 }
        if served.eventsFromStart { fanOut.setEvents(conn, on: true) }
        conn.session = served.session(for: conn)
        table.insert(conn)
        Log.info("connect \(peer)\(served.logName.isEmpty ? "" : " (\(served.logName))") (clients: \(table.count))", category: .connections)
        do {
            try poller.add(fd: socket.fd, id: id)
        } catch {
            // Nothing would ever tell us this client is ready: it must go.
            Log.error("cannot watch \(peer): \(error); closing it")
            close(conn, reason: "cannot watch")
            return
        }
        conn.session.accepted()
        output.updateInterest(conn)
    }

    /// The protocol's BUSY to a connection over a limit, then closed.
    package func refuse(_ socket: Socket, with busy: [UInt8]) {
        _ = socket.send(busy, count: busy.count)
        // Discard what it already sent and end our side first: closing with unread input
        // would make the kernel reset the connection, which can destroy the answer.
        _ = socket.receive(into: readBuffer)
        Platform.shutdownWrite(socket.fd)
        Platform.close(socket.fd)
    }

    /// One batch of ready clients (the poller's source fired).
    private func pollClients() {
        _ = poller.poll { id, readable, writable, hangup in
            guard let conn = table[id] else { return }
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
        switch conn.socket.receive(into: readBuffer) {
        case .done(let count):
            conn.lastActiveSecond = Connection.second(DispatchTime.now().uptimeNanoseconds)
            conn.stalledSince = 0
            conn.session.received(UnsafeRawBufferPointer(rebasing: readBuffer[0..<count]))
            output.updateInterest(conn)
        case .wouldBlock:
            return
        case .closed:
            conn.endInput()
            conn.session.inputEnded()
            output.updateInterest(conn)
        case .failed(let code):
            close(conn, reason: code == ECONNRESET ? "reset by peer" : Platform.describe(code))
        }
    }

    /// Output went out: go on with what waited for it (and close a closing one once done).
    private func written(_ conn: Connection) {
        if conn.isFinishing {
            finish(conn)
        } else {
            conn.session.drained()
            output.updateInterest(conn)
        }
    }

    // MARK: Changes and durability

    // MARK: Closing

    /// A closing connection goes once everything it is owed has been written. Input it sent
    /// that we will never read is discarded first, and our side is shut down: closing a socket
    /// with unread input makes the kernel send a reset, which can destroy the last replies
    /// (an `ERR LINE_TOO_LONG`, an `OK BYE`) before the client reads them.
    package func finish(_ conn: Connection) {
        conn.stopInput()
        output.updateInterest(conn)
        guard conn.phase == .closing, conn.outbox.isEmpty, !fanOut.isOwed(conn) else { return }
        var discarded = 0
        while discarded < 1 << 20, case .done(let n) = conn.socket.receive(into: readBuffer) { discarded += n }
        Platform.shutdownWrite(conn.fd)
        close(conn, reason: nil)
    }

    package func close(_ conn: Connection, reason: String?) {
        guard !conn.isClosed else { return }
        conn.markClosed()
        table.remove(conn)
        admission.remove(conn.pool, address: conn.countedAddress)
        if conn.pool == .probation { probationDeadlines.removeValue(forKey: conn.id) }
        gate.forget(conn)
        fanOut.setEvents(conn, on: false)
        conn.session.closed()
        poller.removeAndClose(fd: conn.fd, id: conn.id)
        for listener in listeners { listener.acceptor.descriptorFreed() }
        Log.info("disconnect \(conn.peer)\(reason.map { " (\($0))" } ?? "") (clients: \(table.count))", category: .connections)
        onClose()
    }

    // MARK: Shutdown

    /// Stops accepting and tells every client the server is going, in its protocol's words (the
    /// line protocol's `EVENT BYE`), after the replies it is owed (held until `gate` is
    /// durable); then each closes.
    package func beginDrain(byeAfter lsn: UInt64) {
        accepting = false
        // A protocol that answers while draining keeps its listener until the end (HTTP:
        // `/healthz` answers 503 meanwhile, so a load balancer sees the drain).
        for listener in listeners where !listener.served.acceptsWhileDraining { listener.acceptor.stop() }
        reaper?.stop()
        for conn in table.values {
            conn.stopInput()
            conn.session.shuttingDown(byeAfter: lsn)
            finish(conn)
        }
    }

    package func closeAll(reason: String) {
        for conn in table.values { close(conn, reason: reason) }
    }

    /// The server has stopped: no more readiness is watched.
    package func stopPolling() {
        for listener in listeners {
            listener.acceptor.stop()
            listener.served.stop()
        }
        poller.cancel()
    }
}

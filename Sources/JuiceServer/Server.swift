import Dispatch
import JuicePlatform
import JuiceCore

/// The TCP server: one listening socket and its clients, driven by DispatchSources on one serial
/// queue (the `LoopExecutor`), which the `FruitStore` shares. The listener has its own source;
/// the clients are watched by a `ClientPoller` (epoll on Linux, a Dispatch source per client elsewhere).
///
/// Output path, for each batch of lines one read delivered: replies are written straight to the
/// socket when nothing is queued (Redis's "direct write first"); what does not fit waits in the
/// connection's `Outbox`, and writability is watched only while it is non-empty. Replies and
/// events that reflect a change wait in the outbox as "held" until the journal is durable.
public actor Server {
    public enum State: Sendable, Equatable {
        case idle, running, draining, stopped
    }

    nonisolated let executor: LoopExecutor
    public nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    let config: ServerConfig
    let store: FruitStore
    private let parser: CommandParser
    public private(set) var state: State = .idle
    private var listener: Int32 = -1
    private var listenerSource: DispatchSourceRead?
    private var listenerPaused = false
    /// Resumes accepting after a pause. Made at start: at EMFILE, libdispatch could not create
    /// the timer descriptor it needs for a new timer, and accepting would never resume.
    private var acceptResumeTimer: DispatchSourceTimer?
    private var lastAcceptWarning: UInt64 = 0
    /// Internal, not private: a test wraps it in one that refuses clients.
    var poller: (any ClientPoller)?
    public private(set) var port = 0
    private var connections: [UInt64: Connection] = [:]
    private var nextID: UInt64 = 1
    private let startedAt = DispatchTime.now().uptimeNanoseconds

    /// One receive buffer for every client: input is framed straight out of it.
    private nonisolated(unsafe) let readBuffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 * 1024, alignment: 16)
    /// Connections with output queued since the last flush pass.
    private var dirty: [Connection] = []
    private var flushScheduled = false
    /// Connections holding output that waits for the journal.
    private var holding: [UInt64: Connection] = [:]
    /// Events waiting for the journal before they may be broadcast.
    private var pendingEvents: [StockEvent] = []
    private var durableLSN: UInt64
    private var idleTimer: DispatchSourceTimer?
    private var shutdownDone: (@Sendable () -> Void)?
    /// The data directory's lock, released when the server stops.
    private var lockFD: Int32

    private let helloLine: [UInt8]
    private let helpLine: [UInt8]
    private let menuLine: [UInt8]
    private let menuAliasesLine: [UInt8]
    private static let byeEvent = Array("EVENT BYE shutting down\r\n".utf8)
    private static let busyLine = Array("ERR BUSY max clients reached\r\n".utf8)

    /// Builds a server over a store (opened by `Storage` or fresh in memory). Call `start()`.
    init(config: ServerConfig, executor: LoopExecutor, store: FruitStore, durableLSN: UInt64, lockFD: Int32) {
        self.config = config
        self.lockFD = lockFD
        self.executor = executor
        self.store = store
        self.parser = CommandParser(menu: config.menu)
        self.durableLSN = durableLSN
        var hello: [UInt8] = []
        Wire.hello(to: &hello)
        helloLine = hello
        helpLine = Array("OK HELP \(Wire.commandList)\r\n".utf8)
        menuLine = Array((Wire.menuLine(config.menu) + "\r\n").utf8)
        menuAliasesLine = Array((Wire.menuAliasesLine(config.menu) + "\r\n").utf8)
    }

    deinit {
        readBuffer.deallocate()
    }

    /// Binds and starts accepting. Returns the port (useful with port 0).
    public func start() throws(SystemError) -> Int {
        precondition(state == .idle, "a server starts once")
        let (fd, boundPort) = try Socket.listen(host: config.host, port: config.port)
        listener = fd
        port = boundPort
        let source = DispatchSource.makeReadSource(fileDescriptor: fd, queue: executor.queue)
        source.setEventHandler { [weak self] in
            self?.assumeIsolated { $0.acceptPending() }
        }
        source.setCancelHandler { Platform.close(fd) }
        listenerSource = source
        let poller = try ClientPollers.make(queue: executor.queue)
        poller.start { [weak self] in
            self?.assumeIsolated { $0.pollClients() }
        }
        self.poller = poller
        let timer = DispatchSource.makeTimerSource(queue: executor.queue)
        timer.setEventHandler { [weak self] in
            self?.assumeIsolated { $0.resumeAccepting() }
        }
        timer.schedule(deadline: .distantFuture)
        timer.resume()
        acceptResumeTimer = timer
        // Dispatch's deadlines (this timer, the shutdown deadline) need its timer descriptors:
        // make sure they exist now, not first at a moment of fd exhaustion.
        executor.queue.asyncAfter(deadline: .now() + .milliseconds(1)) {}
        source.resume()
        store.assumeIsolated { store in
            store.setDurableHandler { [weak self] lsn in
                self?.assumeIsolated { $0.journalDurable(upTo: lsn) }
            }
        }
        if let seconds = config.idleTimeoutSeconds {
            startIdleTimer(seconds: seconds)
        }
        state = .running
        return boundPort
    }

    public var clientCount: Int { connections.count }

    // MARK: - Accepting

    private func acceptPending() {
        // A bounded batch per wake-up keeps one busy listener from starving the clients.
        for _ in 0..<64 {
            guard let (fd, peer) = Socket.accept(listener) else {
                let code = errno
                switch code {
                case EAGAIN, EWOULDBLOCK:
                    return
                case EINTR, ECONNABORTED, EPROTO:
                    continue
                case EMFILE, ENFILE, ENOBUFS, ENOMEM:
                    // Out of descriptors: a level-triggered source would spin on the pending
                    // connection. Pause accepting for a moment and keep serving who we have.
                    pauseAccepting(because: code)
                    return
                default:
                    Log.error("accept failed: \(String(cString: strerror(code)))")
                    return
                }
            }
            guard state == .running, connections.count < config.maxClients else {
                if state == .running { Log.warning("refused \(peer): max clients (\(config.maxClients)) reached") }
                Server.busyLine.withUnsafeBytes { _ = Socket.send(fd, $0) }
                Platform.close(fd)
                continue
            }
            register(fd: fd, peer: peer)
        }
    }

    private func pauseAccepting(because code: Int32) {
        guard let source = listenerSource, !listenerPaused else { return }
        // Waiting connections stay in the backlog and are served once descriptors free up.
        let t = now()
        if t - lastAcceptWarning > 1_000_000_000 {
            lastAcceptWarning = t
            Log.warning("accept: \(String(cString: strerror(code))); pausing new connections for 100 ms (clients: \(connections.count))")
        }
        listenerPaused = true
        source.suspend()
        acceptResumeTimer?.schedule(deadline: .now() + .milliseconds(100))
    }

    private func resumeAccepting() {
        guard listenerPaused, let source = listenerSource else { return }
        listenerPaused = false
        acceptResumeTimer?.schedule(deadline: .distantFuture)
        source.resume()
    }

    private func register(fd: Int32, peer: String) {
        Socket.configureClient(fd)
        let id = nextID
        nextID += 1
        let conn = Connection(id: id, fd: fd, peer: peer, isManager: config.managerToken == nil, now: now())
        connections[id] = conn
        Log.info("connect \(peer) (clients: \(connections.count))")
        do { try poller?.add(fd: fd, id: id) } catch { return unwatchable(conn, error) }
        // The greeting reflects no state: it need not wait for the journal.
        helloLine.withUnsafeBytes { send(conn, $0, gate: 0) }
    }

    // MARK: - Input

    /// One batch of ready clients (the poller's source fired).
    private func pollClients() {
        _ = poller?.poll { id, readable, writable, hangup in
            guard let conn = connections[id] else { return }
            if writable { flush(conn) }
            if conn.closed { return }
            if readable && !conn.closing {
                read(conn)
            } else if hangup {
                close(conn, reason: "hang-up")
            }
        }
    }

    private func read(_ conn: Connection) {
        switch Socket.receive(conn.fd, into: readBuffer) {
        case .done(let count):
            conn.lastInput = now()
            handleInput(conn, UnsafeRawBufferPointer(rebasing: readBuffer[0..<count]))
        case .wouldBlock:
            return
        case .closed:
            // The peer finished sending (maybe only half-closed, like `nc -q`): answer what it
            // sent, then close.
            stopReading(conn)
            finishIfDone(conn)
        case .failed(let code):
            close(conn, reason: code == ECONNRESET ? "reset by peer" : String(cString: strerror(code)))
        }
    }

    /// What one read's lines produced so far: reply bytes, the journal position they wait
    /// for, the changes to broadcast, and the store commands not yet run.
    private struct InputBatch {
        var out: [UInt8] = []
        var gate: UInt64 = 0
        var events: [StockEvent] = []
        var run: [Command] = []
    }

    private func handleInput(_ conn: Connection, _ bytes: UnsafeRawBufferPointer) {
        var batch = InputBatch()
        let framing = conn.framer.feed(bytes) { line in
            guard !conn.closing else { return }
            switch parser.parse(line, isManager: conn.isManager) {
            case .empty:
                break
            case .command(let command):
                if command.needsStore {
                    batch.run.append(command)
                } else {
                    runStore(&batch, conn)
                    local(command, conn, &batch.out)
                }
            case .refused(let error, let hangUp):
                runStore(&batch, conn)
                error.append(to: &batch.out)
                if error.code == .forbidden { logRefusal(conn, "FORBIDDEN for \(conn.peer): \(error.message)") }
                if hangUp {
                    Log.warning("closing \(conn.peer): \(error.message)")
                    conn.closing = true
                }
            }
        } onTimingMark: {
            runStore(&batch, conn)
            batch.out.append(contentsOf: LineFramer.timingMarkReply)
        }
        runStore(&batch, conn)
        if framing == .lineTooLong && !conn.closing {
            ProtocolError(.lineTooLong, "a line may hold at most \(Limits.maxLineBytes) bytes; closing").append(to: &batch.out)
            Log.warning("closing \(conn.peer): line too long")
            conn.closing = true
        }
        if !batch.out.isEmpty {
            batch.out.withUnsafeBytes { send(conn, $0, gate: batch.gate) }
        }
        if !batch.events.isEmpty { publish(batch.events) }
        if conn.closing {
            stopReading(conn)
            finishIfDone(conn)
        } else if !conn.closed && !conn.throttled && conn.outbox.pendingBytes >= Server.throttleHighBytes {
            conn.throttled = true
            watch(conn)
        }
    }

    /// A client with this much output pending stops being read until it is down to the low mark.
    static let throttleHighBytes = 256 * 1024
    static let throttleLowBytes = 64 * 1024

    /// Runs the store commands gathered so far in one synchronous call: one actor entry per
    /// batch of lines, not per line.
    private func runStore(_ batch: inout InputBatch, _ conn: Connection) {
        guard !batch.run.isEmpty else { return }
        let stats = StatsContext(clients: connections.count, startedAt: startedAt)
        let commands = batch.run
        batch.run = []  // not removeAll(keepingCapacity:), which would copy the array `commands` shares
        let result = store.assumeIsolated { $0.execute(commands, stats: stats) }
        if batch.out.isEmpty { batch.out = result.out } else { batch.out.append(contentsOf: result.out) }
        batch.gate = max(batch.gate, result.gate)
        batch.events.append(contentsOf: result.events)
        if let from = result.eventsFrom { conn.eventsFrom = from }
    }

    /// Commands the connection answers itself.
    private func local(_ command: Command, _ conn: Connection, _ out: inout [UInt8]) {
        switch command {
        case .help:
            out.append(contentsOf: helpLine)
        case .ping:
            out.append(ascii: "OK PONG\r\n")
        case .menu:
            out.append(contentsOf: menuLine)
        case .menuAliases:
            out.append(contentsOf: menuAliasesLine)
        case .events(let on):
            conn.eventsOn = on
            out.append(ascii: on ? "OK EVENTS on\r\n" : "OK EVENTS off\r\n")
        case .auth(let token):
            authenticate(conn, token, &out)
        case .quit:
            out.append(ascii: "OK BYE\r\n")
            conn.closing = true
        default:
            assertionFailure("\(command) is a store command")
        }
    }

    private func authenticate(_ conn: Connection, _ token: [UInt8], _ out: inout [UInt8]) {
        guard let expected = config.managerToken else {
            ProtocolError(.authFailed, "no manager token is configured").append(to: &out)
            return
        }
        if constantTimeEqual(token, expected) {
            conn.isManager = true
            conn.authFailures = 0
            out.append(ascii: "OK AUTH\r\n")
            return
        }
        conn.authFailures += 1
        logRefusal(conn, "AUTH refused for \(conn.peer) (failure \(conn.authFailures) of 3)")
        if conn.authFailures >= 3 {
            ProtocolError(.authFailed, "wrong token; 3 failures, closing").append(to: &out)
            conn.closing = true
        } else {
            ProtocolError(.authFailed, "wrong token").append(to: &out)
        }
    }

    /// Every refused AUTH and FORBIDDEN is logged, but a client repeating them cannot flood the
    /// log: after 20 on one connection, only every 1000th is.
    private func logRefusal(_ conn: Connection, _ message: String) {
        conn.refusalsLogged += 1
        let n = conn.refusalsLogged
        if n <= 20 || n % 1000 == 0 {
            Log.warning(message + (n == 20 ? " (further refusals on this connection: every 1000th)" : n > 20 ? " (refusal \(n))" : ""))
        }
    }

    // MARK: - Output

    /// Sends now if nothing is queued and nothing waits for the journal, else queues.
    private func send(_ conn: Connection, _ bytes: UnsafeRawBufferPointer, gate: UInt64) {
        var rest = bytes
        if conn.outbox.isEmpty && gate <= durableLSN {
            switch Socket.send(conn.fd, bytes) {
            case .done(let n):
                if n == bytes.count { return }
                rest = UnsafeRawBufferPointer(rebasing: bytes[n...])
            case .wouldBlock:
                break
            case .closed, .failed:
                close(conn, reason: nil)
                return
            }
        }
        conn.outbox.append(rest, gate: gate, durable: durableLSN)
        if conn.outbox.hasHeld { holding[conn.id] = conn }
        if conn.outbox.hasReady {
            armWrite(conn)
            checkOutputCap(conn)
        }
    }

    /// Queues a shared event line; the flush pass writes it. A display that has a burst
    /// queued is written to at once, so its outbox holds only what its socket would not take.
    private func enqueue(_ conn: Connection, _ line: [UInt8]) {
        conn.outbox.append(line)
        if conn.watchingWrite {
            // Its socket already refused output: this waits behind it, up to the cap.
            checkOutputCap(conn)
        } else if conn.outbox.pendingBytes >= Server.eagerFlushBytes {
            flush(conn)
        } else if !conn.dirty {
            conn.dirty = true
            dirty.append(conn)
        }
    }

    /// Past this much queued output, a connection is written to without waiting for the flush pass.
    static let eagerFlushBytes = 32 * 1024

    /// Sends a batch of changes to every listening client, or parks them until durable.
    private func publish(_ events: [StockEvent]) {
        if let last = events.last, last.lsn > durableLSN {
            pendingEvents.append(contentsOf: events)
            return
        }
        broadcast(events)
    }

    private func broadcast(_ events: [StockEvent]) {
        // A publisher never waits on a subscriber: a display whose socket is full only queues,
        // and is dropped once what its socket refused passes the cap (checked in `flush`).
        for conn in connections.values where conn.eventsOn && !conn.closing && !conn.closed {
            for event in events where event.seq >= conn.eventsFrom {
                enqueue(conn, event.line)
                if conn.closed { break }
            }
        }
        scheduleFlush()
    }

    private func scheduleFlush() {
        guard !flushScheduled, !dirty.isEmpty else { return }
        flushScheduled = true
        // Later on the same queue: reads already queued are handled first, so several events
        // for one display go out in one send.
        executor.queue.async { [weak self] in
            self?.assumeIsolated { $0.flushDirty() }
        }
    }

    /// Writes queued output, at most `flushSlice` connections at a time, then lets the loop take
    /// new input before the rest. A fan-out to a thousand displays takes milliseconds of sends;
    /// an order that arrives meanwhile adds its event to the displays not yet written, and they
    /// get both events in one send. Same order, fewer system calls.
    private func flushDirty() {
        flushScheduled = false
        let count = min(dirty.count, Server.flushSlice)
        let slice = dirty.prefix(count)
        dirty.removeFirst(count)
        for conn in slice {
            conn.dirty = false
            if !conn.closed { flush(conn) }
        }
        scheduleFlush()
    }

    static let flushSlice = 128

    private func flush(_ conn: Connection) {
        defer { unthrottleIfDrained(conn) }
        var failed = false
        conn.outbox.drain { bytes in
            switch Socket.send(conn.fd, bytes) {
            case .done(let n): return n
            case .wouldBlock: return nil
            case .closed, .failed:
                failed = true
                return nil
            }
        }
        if failed {
            close(conn, reason: nil)
            return
        }
        if conn.outbox.hasReady {
            armWrite(conn)
            checkOutputCap(conn)
        } else {
            disarmWrite(conn)
            finishIfDone(conn)
        }
    }

    private func armWrite(_ conn: Connection) {
        guard !conn.watchingWrite, !conn.closed else { return }
        conn.watchingWrite = true
        watch(conn)
    }

    private func disarmWrite(_ conn: Connection) {
        guard conn.watchingWrite, !conn.closed else { return }
        conn.watchingWrite = false
        watch(conn)
    }

    /// Tells the poller what this client is waiting for now.
    private func watch(_ conn: Connection) {
        guard !conn.closed else { return }
        do {
            try poller?.watch(fd: conn.fd, id: conn.id, read: !conn.readPaused && !conn.throttled, write: conn.watchingWrite)
        } catch {
            unwatchable(conn, error)
        }
    }

    /// The poller refused a client: nothing would ever tell us it is ready, so it must go.
    private func unwatchable(_ conn: Connection, _ error: SystemError) {
        Log.error("cannot watch \(conn.peer): \(error); closing it")
        close(conn, reason: "cannot watch")
    }

    private func unthrottleIfDrained(_ conn: Connection) {
        guard conn.throttled, !conn.closed, conn.outbox.pendingBytes <= Server.throttleLowBytes else { return }
        conn.throttled = false
        watch(conn)
    }

    private func checkOutputCap(_ conn: Connection) {
        guard conn.outbox.pendingBytes > config.maxOutputBytes, !conn.closed else { return }
        Log.warning("disconnecting slow client \(conn.peer): \(conn.outbox.pendingBytes) bytes of output pending (limit \(config.maxOutputBytes))")
        close(conn, reason: "slow consumer")
    }

    // MARK: - Durability

    /// The journal is on disk up to `lsn`: release what waited for it, replies before events.
    private func journalDurable(upTo lsn: UInt64) {
        durableLSN = lsn
        for (id, conn) in holding {
            if conn.outbox.release(durable: lsn) {
                if !conn.dirty {
                    conn.dirty = true
                    dirty.append(conn)
                }
            }
            if !conn.outbox.hasHeld { holding.removeValue(forKey: id) }
        }
        if !pendingEvents.isEmpty {
            let ready = pendingEvents.prefix { $0.lsn <= lsn }
            if !ready.isEmpty {
                pendingEvents.removeFirst(ready.count)
                broadcast(Array(ready))
            }
        }
        scheduleFlush()
        if state == .draining { checkDrained() }
    }

    // MARK: - Closing

    private func stopReading(_ conn: Connection) {
        conn.closing = true
        guard !conn.readPaused, !conn.closed else { return }
        conn.readPaused = true
        watch(conn)
    }

    /// A closing connection goes once everything it is owed has been written. Input it sent
    /// that we will never read is discarded first, and our side is shut down: closing a socket
    /// with unread input makes the kernel send a reset, which can destroy the last replies
    /// (an `ERR LINE_TOO_LONG`, an `OK BYE`) before the client reads them.
    private func finishIfDone(_ conn: Connection) {
        guard conn.closing && conn.outbox.isEmpty && !conn.closed else { return }
        var discarded = 0
        while discarded < 1 << 20, case .done(let n) = Socket.receive(conn.fd, into: readBuffer) { discarded += n }
        Platform.shutdownWrite(conn.fd)
        close(conn, reason: nil)
    }

    private func close(_ conn: Connection, reason: String?) {
        guard !conn.closed else { return }
        conn.closed = true
        connections.removeValue(forKey: conn.id)
        holding.removeValue(forKey: conn.id)
        if let poller { poller.removeAndClose(fd: conn.fd, id: conn.id) } else { Platform.close(conn.fd) }
        // A descriptor just came free: if accepting was paused for lack of them, try again now
        // rather than only when the back-off timer fires.
        if listenerPaused { resumeAccepting() }
        Log.info("disconnect \(conn.peer)\(reason.map { " (\($0))" } ?? "") (clients: \(connections.count))")
        if state == .draining { checkDrained() }
    }

    // MARK: - Idle clients

    private func startIdleTimer(seconds: Int) {
        let timer = DispatchSource.makeTimerSource(queue: executor.queue)
        let period = max(1, seconds / 4)
        timer.schedule(deadline: .now() + .seconds(period), repeating: .seconds(period))
        timer.setEventHandler { [weak self] in
            self?.assumeIsolated { $0.closeIdle(after: seconds) }
        }
        idleTimer = timer
        timer.resume()
    }

    private func closeIdle(after seconds: Int) {
        let limit = UInt64(seconds) * 1_000_000_000
        let t = now()
        for conn in connections.values where t - conn.lastInput > limit {
            close(conn, reason: "idle for more than \(seconds) s")
        }
    }

    // MARK: - Shutdown

    /// Graceful shutdown: stop accepting, tell every client, finish the commands already received,
    /// make everything durable, then close. `done` runs once all of that is over (or at `deadline`).
    public func shutdown(deadline: Double = 1.5, done: @escaping @Sendable () -> Void) {
        guard state == .running else { return }
        state = .draining
        shutdownDone = done
        // A suspended source must be resumed before it is cancelled and released.
        if listenerPaused {
            listenerSource?.resume()
            listenerPaused = false
        }
        listenerSource?.cancel()
        listenerSource = nil
        acceptResumeTimer?.cancel()
        idleTimer?.cancel()
        Log.info("shutting down: \(connections.count) clients, flushing replies and the journal")
        let gate = store.assumeIsolated { $0.lastLSN }
        for conn in connections.values {
            stopReading(conn)
            Server.byeEvent.withUnsafeBytes { send(conn, $0, gate: gate) }
            finishIfDone(conn)
        }
        executor.queue.asyncAfter(deadline: .now() + deadline) { [weak self] in
            self?.assumeIsolated { $0.forceStop() }
        }
        checkDrained()
    }

    /// Shuts down gracefully and returns once the server has stopped (tests, embedding).
    public func stop() async {
        guard state == .running else { return }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            shutdown { continuation.resume() }
        }
    }

    private func checkDrained() {
        guard state == .draining, connections.isEmpty else { return }
        let durable = store.assumeIsolated { $0.durableLSN == $0.lastLSN }
        guard durable else { return }
        finishShutdown()
    }

    private func forceStop(retries: Int = 0) {
        guard state == .draining else { return }
        for conn in connections.values { close(conn, reason: "shutdown") }
        if store.assumeIsolated({ $0.durableLSN == $0.lastLSN }) {
            finishShutdown()
        } else if retries >= 8 {
            // The disk has not answered for a while. What is not synced was never acknowledged,
            // so stopping now loses nothing a client was told.
            Log.warning("shutdown: the last journal write is still running; stopping without it (it was never acknowledged)")
            finishShutdown()
        } else {
            // The last journal write is still running: give it a moment more.
            executor.queue.asyncAfter(deadline: .now() + .milliseconds(50)) { [weak self] in
                self?.assumeIsolated { $0.forceStop(retries: retries + 1) }
            }
        }
    }

    private func finishShutdown() {
        state = .stopped
        poller?.cancel()
        poller = nil
        if lockFD >= 0 {
            Platform.close(lockFD)
            lockFD = -1
        }
        Log.info("stopped")
        let done = shutdownDone
        shutdownDone = nil
        done?()
    }

    private func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds }
}

/// Compares secrets in time that does not depend on where they differ.
func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
    var difference: UInt8 = a.count == b.count ? 0 : 1
    for i in 0..<max(a.count, b.count) {
        let x = i < a.count ? a[i] : 0
        let y = i < b.count ? b[i] : 0
        difference |= x ^ y
    }
    return difference == 0
}

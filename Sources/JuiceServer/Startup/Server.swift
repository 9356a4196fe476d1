import Dispatch
import JuiceCore
import JuiceDomain
import JuiceStorage
import JuicePlatform
import JuiceLog
import JuiceLoop
import JuiceServices
import JuiceLine
import JuiceHTTP

/// The TCP server: its lifecycle and the state each stage carries. The work of a running
/// server (accepting, reading, the output path, fan-out, durability) is in `Running` and the
/// parts it wires; see there.
///
/// It runs on one serial queue (the `LoopExecutor`), which the `FruitStore` shares: socket
/// handlers reach both with `assumeIsolated`, with no thread hop and no Task per line.
public actor Server {
    package enum State {
        case idle
        case running(Running)
        /// Stopped accepting, told every client, and waiting for their output and the journal;
        /// `done` is told whether everything acknowledged reached the disk.
        case draining(Running, done: @Sendable (_ durable: Bool) -> Void)
        case stopped
    }

    package nonisolated let executor: LoopExecutor
    public nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    package let config: ServerConfig
    package let store: FruitStore
    private var state = State.idle
    private let startedAt = DispatchTime.now().uptimeNanoseconds
    private let recoveredLSN: UInt64
    /// The data directory's lock, released when the server stops.
    private var lockFD: Int32

    /// Builds a server over a store (opened by `Storage` or fresh in memory, its journal's group
    /// commit in it). Call `start()`.
    package init(config: ServerConfig, executor: LoopExecutor, store: FruitStore, durableLSN: UInt64, lockFD: Int32) {
        self.config = config
        self.lockFD = lockFD
        self.executor = executor
        self.store = store
        self.recoveredLSN = durableLSN
    }

    /// Binds and starts accepting. Returns the port of the first protocol listed
    /// (`ServerConfig.protocols`: the line protocol's), useful with port 0.
    public func start() throws(SystemError) -> Int {
        guard case .idle = state else { preconditionFailure("a server starts once") }
        // The composition: each protocol is made from what the loop lends it and what every
        // protocol shares (made once, by the first protocol made).
        let shared = SharedServices(config: config, store: store, startedAt: startedAt)
        let listings = config.protocols.map { listing in
            LoopListing(name: listing.name, port: listing.port) { loop in listing.make(shared.services(loop)) }
        }
        let running = try Running(config: config.loop, listings: listings, seq: store.assumeIsolated { $0.ledger.seq },
                                  durableLSN: recoveredLSN, queue: executor.queue)
        // The durable path: the journal (nil in memory) tells the gate how far the disk is, and
        // the gate releases held replies and events. The journal is the store's, the gate the
        // server's: both on the loop, which `LoopBound` checks (the compiler sees two actors).
        let gate = LoopBound(running.gate, on: executor.queue)
        store.assumeIsolated { $0.journal?.durabilityListener = gate.value }
        running.onClose = { [weak self] in self?.assumeIsolated { $0.checkDrained() } }
        running.start()
        LoopTestHook.install(on: executor.queue)
        state = .running(running)
        return running.listeners.first?.acceptor.port ?? 0
    }

    /// The port a protocol listens on (after `start()`), or nil if it is off.
    package func port(of name: String) -> Int? { running?.port(of: name) }

    /// The running server's parts (tests reach in through this).
    package var running: Running? {
        switch state {
        case .running(let running), .draining(let running, _): return running
        case .idle, .stopped: return nil
        }
    }

    public var isRunning: Bool {
        if case .running = state { return true }
        return false
    }

    public var clientCount: Int { running?.connections.count ?? 0 }

    /// The store's seq now (the last change applied).
    public var seq: UInt64 { store.assumeIsolated { $0.ledger.seq } }

    // MARK: - Shutdown

    /// Graceful shutdown: stop accepting, tell every client, finish the commands already received,
    /// make everything durable, then close. `done` runs once all of that is over (or at `deadline`),
    /// told whether everything acknowledged is on disk.
    public func shutdown(deadline: Double = 1.5, done: @escaping @Sendable (_ durable: Bool) -> Void) {
        guard case .running(let running) = state else { return }
        state = .draining(running, done: done)
        // From now on each release may be the last thing the drain waits for.
        running.gate.afterDurable = { [weak self] in self?.assumeIsolated { $0.checkDrained() } }
        Log.lifecycle("shutting down: \(running.connections.count) clients, flushing replies and the journal")
        running.beginDrain(byeAfter: store.assumeIsolated { $0.lastLSN })
        executor.queue.asyncAfter(deadline: .now() + deadline) { [weak self] in
            self?.assumeIsolated { $0.forceStop() }
        }
        checkDrained()
    }

    /// Shuts down gracefully and returns once the server has stopped (tests, embedding).
    public func stop() async {
        guard case .running = state else { return }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            shutdown { _ in continuation.resume() }
        }
    }

    private var journalIsDurable: Bool { store.assumeIsolated { $0.durableLSN == $0.lastLSN } }

    private func checkDrained() {
        guard case .draining(let running, _) = state, running.connections.isEmpty, journalIsDurable else { return }
        finish(durable: true)
    }

    private func forceStop(retries: Int = 0) {
        guard case .draining(let running, _) = state else { return }
        running.closeAll(reason: "shutdown")
        if journalIsDurable {
            finish(durable: true)
        } else if retries >= 8 {
            // The disk has not answered for a while. What is not synced was never acknowledged,
            // so stopping now loses nothing a client was told; but the stop was not clean.
            Log.error("shutdown: the last journal write is still running; stopping without it (it was never acknowledged)")
            finish(durable: false)
        } else {
            // The last journal write is still running: give it a moment more.
            executor.queue.asyncAfter(deadline: .now() + .milliseconds(50)) { [weak self] in
                self?.assumeIsolated { $0.forceStop(retries: retries + 1) }
            }
        }
    }

    private func finish(durable: Bool) {
        guard case .draining(let running, let done) = state else { return }
        state = .stopped
        // Anyone who connected to the HTTP side while the journal was still finishing.
        running.closeAll(reason: "shutdown")
        running.stopPolling()
        if lockFD >= 0 {
            Platform.close(lockFD)
            lockFD = -1
        }
        Log.lifecycle("stopped")
        done(durable)
    }
}

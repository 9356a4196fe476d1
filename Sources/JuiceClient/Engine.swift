import Dispatch
import Foundation
import JuiceCore
import JuicePlatform

/// The client's connection and everything that waits on it, confined to one serial queue: the
/// calls waiting for a connection, the calls sent and waiting for their replies (in order), the
/// stock sync and its subscribers, reconnection with backoff, and a keepalive. Lines arrive from
/// the `Link` on the same queue, so no lock is needed and no Task is made per line.
final class Engine: @unchecked Sendable {
    // @unchecked: every member is touched only on `queue`.
    let queue = DispatchQueue(label: "JuiceClient")
    let configuration: JuiceClient.Configuration

    enum LinkState { case down, connecting(since: Double), greeting, ready }
    var link: Link? = nil
    private var linkState = LinkState.down
    /// Bumped with every connection attempt: a late callback of an older one is ignored.
    var generation = 0
    var inflight: [Waiter] = []
    var queued: [Request] = []
    var sync = StockSync()
    var subscribers: [Int: Subscriber] = [:]
    var syncWanted = false
    /// The connection's AUTH: a refused one explains a FORBIDDEN change, a lockout is retried.
    var auth = AuthState()
    /// The paired till this client speaks for (`TILL` on every connection), or why it no longer may.
    var till: TillSignIn
    /// Orders waiting for one of the `JuiceClient.maxUnansweredOrders` places on the connection.
    var held: [Request] = []
    /// Orders sent on this connection and not answered yet (cancelled ones too: their key went out).
    var ordersInFlight = 0
    private var backoff: Backoff
    private(set) var attempt = 0
    private var reconnectPending = false
    private var lastHeard = 0.0
    private var pingOut = false
    var lastFailure = JuiceError.unreachable("not connected yet")
    var tick: DispatchSourceTimer? = nil
    var closed = false
    /// Replies read for calls whose task was cancelled after sending them (for tests).
    private(set) var droppedReplies = 0

    init(configuration: JuiceClient.Configuration) {
        self.configuration = configuration
        till = TillSignIn(credential: configuration.tillCredential)
        backoff = Backoff(initial: configuration.backoffInitial, cap: configuration.backoffCap)
    }

    static func now() -> Double { Double(Platform.monotonicNanoseconds()) / 1e9 }

    var isReady: Bool { if case .ready = linkState { true } else { false } }

    /// Something wants the server: connect unless a connection or a retry is already under way.
    func wake() {
        guard !closed else { return }
        if tick == nil { startTick() }
        guard case .down = linkState, !reconnectPending else { return }
        connect()
    }

    private func connect() {
        generation += 1
        let mine = generation
        linkState = .connecting(since: Self.now())
        let host = configuration.host, port = configuration.port, attempt = attempt
        if let numeric = SocketAddress(host: host, port: port) {
            open(numeric, generation: mine)
        } else {
            // getaddrinfo blocks: never on the queue (a Dispatch thread), on a thread of its own.
            Thread.detachNewThread { [weak self, queue] in
                let found = Result { () throws(SystemError) in try SocketAddress.resolve(host: host, port: port) }
                queue.async { [weak self] in
                    guard let self, self.generation == mine, !self.closed else { return }
                    switch found {
                    case .success(let list): self.open(list[attempt % list.count], generation: mine)
                    case .failure(let error): self.linkLost("\(error)")
                    }
                }
            }
        }
    }

    private func open(_ address: SocketAddress, generation mine: Int) {
        do {
            let link = try Link(to: address, queue: queue)
            link.onConnected = { [weak self] in
                guard let self, self.generation == mine else { return }
                self.linkState = .greeting
                self.lastHeard = Self.now()
            }
            link.onLine = { [weak self] line in
                guard let self, self.generation == mine else { return }
                self.received(line)
            }
            link.onClosed = { [weak self] reason in
                guard let self, self.generation == mine else { return }
                self.linkLost(reason)
            }
            self.link = link
            link.start()
        } catch {
            linkLost("\(error)")
        }
    }

    private func received(_ line: ServerLine) {
        lastHeard = Self.now()
        pingOut = false
        if case .greeting = linkState {
            switch line {
            case .hello(let text):
                sync.greeted(text)
                ready()
            case .err(let code, let message): // refused before the greeting: BUSY
                let error = JuiceError(code: code, message: message)
                linkLost("\(error)", failure: error)
            default: break
            }
            return
        }
        switch line {
        case .stockEvent:
            if syncWanted { apply(sync.receive(line)) }
        case .bye(let reason):
            linkLost("server said BYE \(reason)")
        case .ok, .err:
            guard !inflight.isEmpty else { return } // a reply to nothing: ignore it
            switch inflight.removeFirst() {
            case .request(let request):
                if request.continuation == nil { droppedReplies += 1 }
                request.finish(.success(explained(line, for: request)))
                if request.isKeyed { orderAnswered(line) }
            case .sync: apply(sync.receive(line))
            case .auth: auth.received(line, now: Self.now())
            case .till: tillAnswered(line)
            case .ping: break
            }
        case .hello, .otherEvent, .unknown:
            break
        }
    }

    /// The server greeted us: sign in as the till, authenticate, resume the stock sync, then
    /// send every waiting call (the protocol answers in order, so they all see the sign-in).
    private func ready() {
        linkState = .ready
        backoff.reset()
        attempt = 0
        if let credential = till.usableCredential {
            inflight.append(.till)
            link?.send("TILL \(credential)")
        }
        auth.reset()
        sendAuth()
        if syncWanted { startSync() }
        let waiting = queued
        queued = []
        for request in waiting { transmit(request) }
    }

    func startSync() {
        for command in sync.start() {
            inflight.append(.sync)
            link?.send(command)
        }
    }

    /// Sends a call now if the connection is ready, else queues it (connecting if need be).
    func transmit(_ request: Request) {
        guard request.continuation != nil else { return }
        // A revoked till sells nothing: its orders (and voids) fail here, never sent.
        if request.isKeyed, let refusal = till.refusal { return request.finish(.failure(refusal)) }
        guard isReady, let link else {
            if request.deadline == nil { request.deadline = Self.now() + configuration.retryBound }
            queued.append(request)
            wake()
            return
        }
        // A lockout has run out since this connection's AUTH was refused: try again, ahead of
        // the change (the protocol answers in order, so the change sees the new verdict).
        if request.kind == .change, auth.shouldRetry(now: Self.now()) { sendAuth() }
        if request.isKeyed {
            // At most maxUnansweredOrders keys out at once (the server keeps a till's newest
            // 1000: see SellingExactlyOnce): the rest wait their turn, unsent.
            guard ordersInFlight < JuiceClient.maxUnansweredOrders else { return held.append(request) }
            ordersInFlight += 1
        }
        request.sent = true
        inflight.append(.request(request))
        link.send(request.line)
    }

    /// Applies what the stock sync decided: its commands go out, its updates to the subscribers.
    func apply(_ output: StockSync.Output) {
        for command in output.commands {
            inflight.append(.sync)
            link?.send(command)
        }
        for update in output.updates { publish(update) }
        if output.disconnect { linkLost(output.note ?? "out of step with the server") }
    }

    /// The connection failed or ended: calls it carried wait for the next one (orders and reads)
    /// or fail (changes, which must not be repeated); a retry follows after the backoff.
    func linkLost(_ reason: String, failure: JuiceError? = nil) {
        guard !closed else { return }
        link?.close()
        link = nil
        generation += 1
        linkState = .down
        pingOut = false
        auth.reset()
        lastFailure = failure ?? .unreachable(reason)
        var resend: [Request] = []
        for waiter in inflight {
            guard case .request(let request) = waiter, request.continuation != nil else { continue }
            if request.kind == .change {
                request.finish(.failure(JuiceError.changeInDoubt(command: request.line, reason: reason)))
            } else {
                if request.deadline == nil { request.deadline = Self.now() + configuration.retryBound }
                resend.append(request)
            }
        }
        inflight = []
        ordersInFlight = 0
        // Held orders were never sent: they wait behind the re-sent ones, with a deadline now.
        for request in held where request.deadline == nil { request.deadline = Self.now() + configuration.retryBound }
        queued = resend + held + queued
        held = []
        sync.connectionOpened()
        attempt += 1
        if syncWanted { publish(.offline(attempt: attempt, reason: reason)) }
        expire()
        guard !queued.isEmpty || !subscribers.isEmpty else { return } // nobody waits: reconnect lazily
        reconnectPending = true
        let delay = backoff.nextDelay()
        queue.asyncAfter(deadline: .now() + delay) { [weak self] in
            guard let self, !self.closed else { return }
            self.reconnectPending = false
            self.wake()
        }
    }

    /// Fails the calls that waited for a connection past their deadline.
    private func expire() {
        let now = Self.now()
        queued.removeAll { request in
            guard request.continuation != nil else { return true }
            guard let deadline = request.deadline, deadline <= now else { return false }
            request.finish(.failure(request.expired(lastFailure: lastFailure)))
            return true
        }
    }

    /// Twice a second: connect timeout, keepalive, deadlines.
    private func startTick() {
        let timer = DispatchSource.makeTimerSource(queue: queue)
        timer.schedule(deadline: .now() + 0.5, repeating: 0.5)
        timer.setEventHandler { [weak self] in self?.ticked() }
        timer.resume()
        tick = timer
    }

    private func ticked() {
        let now = Self.now()
        switch linkState {
        case .connecting(let since):
            if now - since > configuration.connectTimeout { linkLost("connect timed out") }
        case .greeting, .ready:
            let idle = now - lastHeard
            if idle > configuration.dropAfterSilence {
                linkLost("no answer from the server for \(Int(idle)) s")
            } else if idle > configuration.pingAfterSilence, !pingOut, isReady {
                pingOut = true
                inflight.append(.ping)
                link?.send("PING")
            }
        case .down:
            break
        }
        if !isReady { expire() }
    }
}

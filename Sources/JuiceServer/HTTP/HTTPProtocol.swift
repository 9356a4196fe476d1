import Dispatch
import JuiceCore

/// The HTTP side of a connection: requests answered one at a time (HTTP/1.1 kept alive up to a
/// cap), the writes among them through the same store, journal and broadcast as their line
/// twins; or, for `GET /events`, an event stream that stays open and takes live changes like a
/// display, with the same output path, fan-out, catch-up and durability gate as the line
/// protocol.
///
/// The edge is as hardened as the TCP side: the request is read on bytes and capped
/// (`HTTPRequestReader`), a client that never finishes it is closed after a deadline, an idle
/// kept-alive one after a shorter one, and an event stream that stops reading is dropped past
/// the output cap.
final class HTTPProtocol: ConnectionHandler, @unchecked Sendable {
    // @unchecked: loop-confined; its timer fires on the loop queue.
    private let store: FruitStore
    private let output: OutputPath
    private let fanOut: FanOut
    private unowned let host: any ConnectionHost
    private var routes: HTTPRoutes
    /// Whose word on a request's client is taken (`--trusted-proxy`).
    private let proxies: TrustedProxies
    /// Connections waiting for (the rest of) a request (for the deadlines).
    private var awaiting: [UInt64: HTTPConnection] = [:]
    /// Open event streams (for keep-alive comments, and the clients gauge).
    private(set) var streams: [UInt64: HTTPConnection] = [:]
    /// HTTP connections open now (the rest of the server's clients speak something else).
    private var open = 0
    private var timer: DispatchSourceTimer?
    private var ticks = 0

    /// Seconds a client has to send its whole request (head and body) once it began
    /// (`ServerConfig.httpRequestDeadline`).
    private let requestDeadline: UInt64
    /// A kept-alive connection is closed after this many seconds without a new request.
    static let keepAliveIdle: UInt64 = 5
    /// Requests on one connection; the last one's answer says `Connection: close`. It bounds a
    /// connection's lifetime, not its speed: 1000 is nginx's default `keepalive_requests`; at
    /// 100, S7's 50 busy tills reconnected ~240 times a second (an accept and a close each).
    static let maxRequestsPerConnection: UInt16 = 1000
    /// Seconds between `: ping` comments on an open stream (`ServerConfig.eventStreamPingEvery`;
    /// browsers and proxies time out idle streams: 15 s keeps well inside the usual 30-60 s).
    private let pingEvery: Int

    init(_ services: LoopServices) {
        store = services.store
        output = services.output
        fanOut = services.fanOut
        host = services.host
        requestDeadline = services.config.httpRequestDeadline
        pingEvery = services.config.eventStreamPingEvery
        proxies = TrustedProxies(services.config.trustedProxies)
        routes = HTTPRoutes(store: services.store, auth: services.auth, allowedHosts: services.config.allowedHosts)
        let timer = DispatchSource.makeTimerSource(queue: services.queue)
        timer.schedule(deadline: .now() + .seconds(1), repeating: .seconds(1))
        timer.setEventHandler { [weak self] in self?.tick() }
        timer.resume()
        self.timer = timer
        routes.isDraining = { [unowned host] in !host.isAccepting }
        // `/metrics` counts line clients (everyone not on HTTP) and event streams.
        routes.clientCounts = { [unowned self, unowned host] in (host.clientCount - open, streams.count) }
    }

    /// What every stream starts with: its head, then how soon to reconnect.
    private static let streamStart = HTTPResponse.eventStreamHead + Wire.streamRetry

    // MARK: ConnectionHandler

    var logName: String { "HTTP" }
    /// `/healthz` answers 503 while the server drains, so a load balancer sees it.
    var acceptsWhileDraining: Bool { true }

    func busyRefusal(perAddress: Bool) -> [UInt8] { perAddress ? HTTPResponse.busyForAddress : HTTPResponse.busy }

    func makeConnection(id: UInt64, fd: Int32, peer: String, listener: UInt8, now: UInt64) -> Connection {
        open += 1
        return HTTPConnection(id: id, fd: fd, peer: peer, listener: listener, now: now)
    }

    func accepted(_ conn: Connection) {
        awaiting[conn.id] = http(conn)
    }

    func closed(_ conn: Connection) {
        open -= 1
        awaiting.removeValue(forKey: conn.id)
        streams.removeValue(forKey: conn.id)
    }

    /// Event streams simply end (browsers reconnect by themselves).
    func shuttingDown(_ conn: Connection, byeAfter lsn: UInt64) {}

    /// Every connection this handler sees is one it made.
    private func http(_ conn: Connection) -> HTTPConnection {
        unsafeDowncast(conn, to: HTTPConnection.self)
    }

    func stop() {
        timer?.cancel()
        timer = nil
    }

    /// One read's bytes: a request (head, then its body) as it arrives. Reading pauses while a
    /// request is answered; bytes after it wait in the reader. Bytes on an open stream are
    /// discarded unread.
    func received(_ conn: Connection, _ bytes: UnsafeRawBufferPointer) {
        let conn = http(conn)
        guard !conn.isStream, conn.phase == .open else { return }
        // A kept-alive connection was idle until now: its request's deadline starts here.
        if !conn.reader.hasStarted { conn.requestStartedAt = DispatchTime.now().uptimeNanoseconds }
        handle(conn, conn.reader.feed(bytes))
    }

    /// The peer finished sending: what it is owed still goes out, then it closes.
    func inputEnded(_ conn: Connection) {
        awaiting.removeValue(forKey: conn.id)
        host.finish(conn)
    }

    /// Answers what the reader made of the input: requests one at a time, each read only once
    /// the one before is out, at most a turn's worth (`FairTurn.maxRequests`, or its output)
    /// before the other connections get theirs.
    private func handle(_ conn: HTTPConnection, _ first: HTTPRequestReader.Outcome) {
        var outcome = first
        var turn = FairTurn(limit: FairTurn.maxRequests)
        while true {
            switch outcome {
            case .incomplete:
                return
            case .refused(let status, let message):
                awaiting.removeValue(forKey: conn.id)
                Log.warning("HTTP \(status.code) for \(conn.peer): \(message)", category: .refusals)
                send(conn, HTTPResponse.plain(status, message).bytes(), keepAlive: false)
                return
            case .refusedBody(let request, let status, let message):
                // Its body cannot be read, so nothing after it can be framed: answer and close.
                awaiting.removeValue(forKey: conn.id)
                Log.warning("HTTP \(status.code) for \(conn.peer): \(message)", category: .refusals)
                let body = HTTPWrites.paths.contains(request.path) ? HTTPWrites.refusal(status, "BAD_REQUEST", message) : .plain(status, message)
                send(conn, body.bytes(includeBody: request.method != "HEAD"), keepAlive: false)
                return
            case .complete(let request):
                awaiting.removeValue(forKey: conn.id)
                conn.served &+= 1
                turn.countLine()
                turn.countOutput(respond(conn, to: request))
                guard !conn.isFinishing, !conn.isStream else { return }
                // Kept alive: the next request once this answer is out (it may wait for the journal).
                guard conn.outbox.isEmpty else {
                    conn.answering = true
                    output.updateInterest(conn)
                    return
                }
                if turn.isOver() && conn.reader.hasStarted {
                    // More requests are pipelined behind it: they wait, unread, for its next turn
                    // (`drained`), after the connections already waiting.
                    conn.answering = true
                    output.updateInterest(conn)
                    fanOut.markDirty(conn)
                    return
                }
                outcome = readNext(conn)
            }
        }
    }

    /// Waits for the connection's next request (kept alive), going on with what it already sent.
    private func readNext(_ conn: HTTPConnection) -> HTTPRequestReader.Outcome {
        conn.answering = false
        conn.requestStartedAt = DispatchTime.now().uptimeNanoseconds
        awaiting[conn.id] = conn
        output.updateInterest(conn)
        return conn.reader.next()
    }

    /// Whether the connection stays for another request: HTTP/1.1 unless it said
    /// `Connection: close`, under the cap, and not while the server drains.
    private func keepsAlive(_ conn: HTTPConnection, _ request: HTTPRequest) -> Bool {
        let close = request.header("connection")?.lowercased().split(separator: ",").contains { $0.filter { $0 != " " } == "close" } ?? false
        return request.minorVersion == 1 && !close && conn.served < HTTPProtocol.maxRequestsPerConnection && host.isAccepting
    }

    /// Answers one request; returns the bytes of its answer (for the turn's output; 0 for an
    /// event stream, which goes on in its own turns).
    private func respond(_ conn: HTTPConnection, to request: HTTPRequest) -> Int {
        let head = request.method == "HEAD"
        let keepAlive = keepsAlive(conn, request)
        let client = proxies.isEmpty ? RequestClient(peer: conn.peer) : RequestClient(request, peer: conn.peer, proxies: proxies)
        switch routes.route(request, client: client) {
        case .response(let response, let gate):
            let bytes = response.bytes(includeBody: !head, keepAlive: keepAlive)
            send(conn, bytes, waitingFor: gate, keepAlive: keepAlive)
            return bytes.count
        case .change(let response, let gate, let events):
            // The answer first, then the broadcast: like a line client, the writer gets its
            // answer before the event of its change goes anywhere.
            let bytes = response.bytes(keepAlive: keepAlive)
            send(conn, bytes, waitingFor: gate, keepAlive: keepAlive)
            if !events.isEmpty { host.publish(events) }
            return bytes.count
        case .eventStream(let lastEventID):
            guard !head else {
                send(conn, HTTPResponse.eventStreamHeadOnly, keepAlive: false)
                return 0
            }
            openStream(conn, after: lastEventID)
            return 0
        }
    }

    /// One response; without keep-alive the connection then closes (once its output is out).
    private func send(_ conn: HTTPConnection, _ bytes: [UInt8], waitingFor gate: UInt64 = 0, keepAlive: Bool) {
        output.send(conn, bytes, waitingFor: gate)
        // A failed send (the peer reset) closed it already: closing again would act on a
        // descriptor number that may be someone else's by now.
        if conn.isClosed || keepAlive { return }
        host.finish(conn)
    }

    /// The stream starts with the full state (or, with `Last-Event-ID`, the changes after it,
    /// as SINCE does), then live changes follow with no gap and no duplicate. The head waits
    /// for the journal like the state it precedes, and so does everything after it.
    private func openStream(_ conn: HTTPConnection, after lastEventID: EventID?) {
        conn.isStream = true
        streams[conn.id] = conn
        let start = store.assumeIsolated { $0.openStream(after: lastEventID) }
        output.send(conn, HTTPProtocol.streamStart, waitingFor: start.gate)
        if conn.isClosed { return }
        fanOut.listen(conn, from: start.eventsFrom ?? 0, catchUp: start.catchUp)
        if !start.out.isEmpty { output.send(conn, start.out, waitingFor: start.gate) }
        drained(conn)
    }

    /// Output went out, or its next turn came: an event stream goes on with its catch-up; an
    /// answered request closes, or, kept alive, reads its next request.
    func drained(_ conn: Connection) {
        let conn = http(conn)
        if conn.isFinishing {
            host.finish(conn)
            return
        }
        if conn.answering {
            if conn.outbox.isEmpty { handle(conn, readNext(conn)) }
            return
        }
        _ = fanOut.pumpCatchUp(conn)
        output.updateInterest(conn)
    }

    private func tick() {
        ticks += 1
        let now = DispatchTime.now().uptimeNanoseconds
        let deadline = requestDeadline * 1_000_000_000
        // `close` takes it out of `awaiting` (through `closed`).
        let idle = HTTPProtocol.keepAliveIdle * 1_000_000_000
        for conn in awaiting.values {
            if conn.reader.hasStarted {
                if now - conn.requestStartedAt > deadline {
                    host.close(conn, reason: "no complete request within \(requestDeadline) s")
                }
            } else if now - conn.requestStartedAt > (conn.served == 0 ? deadline : idle) {
                host.close(conn, reason: conn.served == 0 ? "no request within \(requestDeadline) s" : "idle keep-alive")
            }
        }
        if ticks % pingEvery == 0 {
            for conn in streams.values where conn.catchUp == nil && !conn.isFinishing {
                if output.enqueue(conn, Wire.streamPing) { fanOut.markDirty(conn) }
            }
        }
    }
}

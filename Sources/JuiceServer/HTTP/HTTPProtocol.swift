import Dispatch
import JuiceCore

/// The HTTP side of a connection, read-only: one request, answered, then closed; or, for
/// `GET /events`, an event stream that stays open and takes live changes like a display, with
/// the same output path, fan-out, catch-up and durability gate as the line protocol.
///
/// The edge is as hardened as the TCP side: the request head is read on bytes and capped
/// (`HTTPRequestReader`), a client that never finishes it is closed after a deadline, and an
/// event stream that stops reading is dropped past the output cap.
final class HTTPProtocol: @unchecked Sendable {
    // @unchecked: loop-confined; its timer fires on the loop queue.
    private let store: FruitStore
    private let output: OutputPath
    private let fanOut: FanOut
    private let catchUp: CatchUpStream
    var routes: HTTPRoutes
    /// Connections still waiting for their request head (for the deadline).
    private var awaiting: [UInt64: Connection] = [:]
    /// Open event streams (for keep-alive comments, and the clients gauge).
    private(set) var streams: [UInt64: Connection] = [:]
    private var timer: DispatchSourceTimer?
    private var ticks = 0
    /// A connection is done (its answer queued, or gone): the server closes it once it is out.
    var finish: (Connection) -> Void = { _ in }
    /// Close now, with a reason for the log.
    var close: (Connection, String) -> Void = { _, _ in }

    /// Seconds a client has to send its whole request head (`ServerConfig.httpRequestDeadline`).
    private let requestDeadline: UInt64
    /// Seconds between `: ping` comments on an open stream (`ServerConfig.eventStreamPingEvery`).
    private let pingEvery: Int

    init(store: FruitStore, output: OutputPath, fanOut: FanOut, routes: HTTPRoutes, queue: DispatchQueue,
         requestDeadline: UInt64, pingEvery: Int) {
        (self.requestDeadline, self.pingEvery) = (requestDeadline, pingEvery)
        self.store = store
        self.output = output
        self.fanOut = fanOut
        self.routes = routes
        self.catchUp = CatchUpStream(store: store, output: output, fanOut: fanOut)
        let timer = DispatchSource.makeTimerSource(queue: queue)
        timer.schedule(deadline: .now() + .seconds(1), repeating: .seconds(1))
        timer.setEventHandler { [weak self] in self?.tick() }
        timer.resume()
        self.timer = timer
    }

    /// What every stream starts with: its head, then how soon to reconnect.
    private static let streamStart = HTTPResponse.eventStreamHead + Wire.streamRetry

    func accepted(_ conn: Connection) {
        awaiting[conn.id] = conn
    }

    func closed(_ conn: Connection) {
        awaiting.removeValue(forKey: conn.id)
        streams.removeValue(forKey: conn.id)
    }

    func stop() {
        timer?.cancel()
        timer = nil
    }

    /// One read's bytes. Only a request head is read; anything after it (a body, a pipelined
    /// request, bytes on an open stream) is discarded unread.
    func received(_ conn: Connection, _ bytes: UnsafeRawBufferPointer) {
        guard conn.kind == .http, conn.phase == .open else { return }
        switch conn.httpReader.feed(bytes) {
        case .incomplete:
            return
        case .refused(let status, let message):
            awaiting.removeValue(forKey: conn.id)
            Log.warning("HTTP \(status.rawValue) for \(conn.peer): \(message)", category: .refusals)
            sendAndClose(conn, HTTPResponse.plain(status, message).bytes())
        case .complete(let request):
            awaiting.removeValue(forKey: conn.id)
            respond(conn, to: request)
        }
    }

    /// The peer finished sending: what it is owed still goes out, then it closes.
    func inputEnded(_ conn: Connection) {
        awaiting.removeValue(forKey: conn.id)
        if conn.phase == .open { conn.phase = .closing }
        finish(conn)
    }

    private func respond(_ conn: Connection, to request: HTTPRequest) {
        let head = request.method == "HEAD"
        switch routes.route(request, peer: conn.peer) {
        case .response(let response, let gate):
            sendAndClose(conn, response.bytes(includeBody: !head), waitingFor: gate)
        case .eventStream(let lastEventID):
            guard !head else {
                sendAndClose(conn, HTTPResponse.eventStreamHeadOnly)
                return
            }
            openStream(conn, after: lastEventID)
        }
    }

    /// One response, then the connection closes (once its output is out).
    private func sendAndClose(_ conn: Connection, _ bytes: [UInt8], waitingFor gate: UInt64 = 0) {
        output.send(conn, bytes, waitingFor: gate)
        // A failed send (the peer reset) closed it already: closing again would act on a
        // descriptor number that may be someone else's by now.
        if conn.isClosed { return }
        conn.phase = .closing
        finish(conn)
    }

    /// The stream starts with the full state (or, with `Last-Event-ID`, the changes after it,
    /// as SINCE does), then live changes follow with no gap and no duplicate. The head waits
    /// for the journal like the state it precedes, and so does everything after it.
    private func openStream(_ conn: Connection, after lastEventID: UInt64?) {
        conn.kind = .eventStream
        conn.eventsOn = true
        streams[conn.id] = conn
        let start = store.assumeIsolated { $0.openStream(after: lastEventID) }
        output.send(conn, HTTPProtocol.streamStart, waitingFor: start.gate)
        if conn.isClosed { return }
        conn.eventsFrom = start.eventsFrom ?? 0
        conn.catchUp = start.catchUp
        if !start.out.isEmpty { output.send(conn, start.out, waitingFor: start.gate) }
        carryOn(conn)
    }

    /// Output went out: an event stream goes on with its catch-up; an answered request closes.
    func carryOn(_ conn: Connection) {
        if conn.isFinishing {
            finish(conn)
            return
        }
        _ = catchUp.pump(conn)
        output.updateInterest(conn)
    }

    private func tick() {
        ticks += 1
        let now = DispatchTime.now().uptimeNanoseconds
        let deadline = requestDeadline * 1_000_000_000
        // `close` takes it out of `awaiting` (through `closed`).
        for conn in awaiting.values where now - conn.acceptedAt > deadline {
            close(conn, "no complete request within \(requestDeadline) s")
        }
        if ticks % pingEvery == 0 {
            for conn in streams.values where conn.catchUp == nil && !conn.isFinishing {
                if output.enqueue(conn, Wire.streamPing) { fanOut.markDirty(conn) }
            }
        }
    }
}

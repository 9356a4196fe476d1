import Dispatch
import JuiceCore
import JuiceDomain
import JuicePlatform
import JuiceLog
import JuiceLoop
import JuiceServices

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
package final class HTTPProtocol: ServedProtocol, @unchecked Sendable {
    // @unchecked: loop-confined; its timer fires on the loop queue.
    package static let name = "http"

    /// HTTP on `port` (`--http-port`; nil: `--no-http`).
    package static func listing(port: Int?) -> ProtocolListing {
        ProtocolListing(name: name, port: port) { HTTPProtocol($0) }
    }

    /// What the loop shares: the store, the output path, the fan-out, the host.
    package let loop: LoopServices
    // Its stored fields are internal, not `package`: the optimizer drops the run-time
    // exclusivity check of a class's stored field only when it sees every access, and a checked
    // read of `routes` copied the whole struct (a retain per reference in it) for each request.
    private(set) var routes: HTTPRoutes
    /// Whose word on a request's client is taken (`--trusted-proxy`).
    package let proxies: TrustedProxies
    /// Connections waiting for (the rest of) a request (for the deadlines).
    var awaiting: [UInt64: HTTPSession] = [:]
    /// Open event streams (for keep-alive comments, and the clients gauge).
    var streams: [UInt64: HTTPSession] = [:]
    /// HTTP connections open now (the rest of the server's clients speak something else).
    var open = 0
    /// Connections sending a backup a part at a time now. Each may hold a copy of its own (the
    /// store encodes anew once the journal moved), so they are counted: past
    /// `maxBackupsSending` a `GET /backup` is answered 503 before anything is encoded.
    var backupsSending = 0
    package static let maxBackupsSending = 4
    /// The connection whose request is being routed (for `routes.signedIn`); nil between.
    var routing: SessionLink?
    private var timer: DispatchSourceTimer?
    private var ticks = 0
    private let menu: Menu

    /// Seconds a client has to send its whole request (head and body) once it began
    /// (`ServerConfig.httpRequestDeadline`).
    package let requestDeadline: UInt64
    /// A kept-alive connection is closed after this many seconds without a new request.
    package static let keepAliveIdle: UInt64 = 5
    /// Requests on one connection; the last one's answer says `Connection: close`. It bounds a
    /// connection's lifetime, not its speed: 1000 is nginx's default `keepalive_requests`; at
    /// 100, S7's 50 busy tills reconnected ~240 times a second (an accept and a close each).
    package static let maxRequestsPerConnection: UInt16 = 1000
    /// Seconds between `: ping` comments on an open stream (`ServerConfig.eventStreamPingEvery`;
    /// browsers and proxies time out idle streams: 15 s keeps well inside the usual 30-60 s).
    private let pingEvery: Int

    package init(_ services: LoopServices) {
        loop = services
        menu = services.store.menu
        requestDeadline = services.config.httpRequestDeadline
        pingEvery = services.config.eventStreamPingEvery
        proxies = TrustedProxies(services.config.trustedProxies)
        routes = HTTPRoutes(store: services.store, auth: services.auth, allowedHosts: services.config.allowedHosts)
        routes.presence = services.tills
        let timer = DispatchSource.makeTimerSource(queue: services.queue)
        timer.schedule(deadline: .now() + .seconds(1), repeating: .seconds(1))
        timer.setEventHandler { [weak self] in self?.tick() }
        timer.resume()
        self.timer = timer
        routes.isDraining = { [unowned self] in !loop.isAccepting }
        routes.signedIn = { [unowned self] in routing?.markKnown() }
        // A trusted proxy's connection carries many clients' requests: it is no till's seat.
        routes.tillHasRoom = { [unowned self] till in
            guard let link = routing, !proxies.trusts(peer: link.peer) else { return true }
            return link.tillHasRoom(till)
        }
        // `/metrics` counts line clients (everyone not on HTTP) and event streams.
        routes.clientCounts = { [unowned self] in (loop.clientCount - open, streams.count) }
    }

    /// What every stream starts with: its head, then how soon to reconnect.
    package static let streamStart = HTTPResponse.eventStreamHead + Wire.streamRetry

    package var logName: String { "HTTP" }
    /// `/healthz` answers 503 while the server drains, so a load balancer sees it.
    package var acceptsWhileDraining: Bool { true }
    /// Events only once it asks for /events, so none go out ahead of a response while it is
    /// still sending its request.
    package var eventsFromStart: Bool { false }
    /// A trusted proxy's `X-Forwarded-For` names each request's client.
    package var namesClients: Bool { true }

    package func busyRefusal(perAddress: Bool) -> [UInt8] { perAddress ? HTTPResponse.busyForAddress : HTTPResponse.busy }

    package func session(for conn: Connection) -> any ConnectionSession {
        open += 1
        return HTTPSession(SessionLink(conn, loop), protocol: self)
    }

    /// An event-stream message: `id: <seq>`, `event: stock`, `data: {"seq":..,"stock":{..}}`.
    package func appendEvent(seq: UInt64, _ touched: [FruitValue], to out: inout [UInt8]) {
        Wire.appendStreamEvent(seq: seq, touched, menu: menu, to: &out)
    }

    package func stop() {
        timer?.cancel()
        timer = nil
    }

    private func tick() {
        ticks += 1
        let now = DispatchTime.now().uptimeNanoseconds
        let deadline = requestDeadline * 1_000_000_000
        // `close` takes it out of `awaiting` (through `closed`).
        let idle = HTTPProtocol.keepAliveIdle * 1_000_000_000
        for session in awaiting.values {
            session.checkDeadline(now: now, deadline: deadline, idle: idle)
        }
        if ticks % pingEvery == 0 {
            for session in streams.values { session.ping() }
        }
    }
}


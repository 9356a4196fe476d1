import JuiceCore
import JuiceDomain
import JuicePlatform
import JuiceLog
import JuiceLoop
import JuiceServices

/// What each path answers. Public: the board (`/`, `/events`, `/state`) and `/healthz` — the
/// shop's screens and the load balancer's probe. With a manager token configured, the manager's
/// data (`/metrics`, `/sales`) needs `Authorization: Bearer <token>`; the dashboard page itself
/// is public and asks for the token. The writes (`POST /orders`, `/voids`, `/restock`, `/set`) are
/// `HTTPWrites`.
package struct HTTPRoutes {
    package enum Route {
        /// Answer, once the journal is durable up to `after` (a journal position).
        case response(HTTPResponse, after: UInt64)
        /// A write's answer, and the changes it made (to broadcast after the answer is queued);
        /// `till`: the paired till that made it (the connection is that till's now).
        case change(HTTPResponse, after: UInt64, events: [StockEvent], till: TillID?)
        /// A tills request's answer; the till it paired (this connection is it now) or revoked
        /// (its connections close).
        case tills(HTTPResponse, after: UInt64, paired: TillID?, revoked: TillID?)
        /// Open an event stream, resuming after this seq if the browser sent `Last-Event-ID`.
        case eventStream(lastEventID: EventID?)
    }

    package let store: FruitStore
    package let auth: ManagerAuth
    package let writes: HTTPWrites
    package let tills: TillRoutes
    /// Which connections are which till (for the tills list).
    package var presence = TillPresence()
    /// Whether shutdown has begun (`/healthz` then answers 503).
    package var isDraining: () -> Bool = { false }
    /// Told when a request's `Bearer` token or till credential checked out (or it paired a
    /// till): its connection is a known client
    /// (`ConnectionHost.markKnown`).
    package var signedIn: () -> Void = {}
    /// Whether the connection being routed may speak for a till (`TillPresence.hasRoom`).
    package var tillHasRoom: (TillID) -> Bool = { _ in true }
    /// The values `/metrics` reports that only the server knows (clients by kind).
    package var clientCounts: () -> (line: Int, events: Int) = { (0, 0) }
    // The pages are files (Pages/board.html, …; README, "Pages are files") and the API's document
    // is docs/openapi.json: all embedded at build time by the EmbedFiles plugin as `EmbeddedFiles`,
    // each page already made whole there (its shared pieces in), so here they are only bytes.
    private static let files: [ReadRoute: HTTPResponse] = [
        .board: page(EmbeddedFiles.boardHTML),
        .boardIndex: page(EmbeddedFiles.boardHTML),
        .dashboard: page(EmbeddedFiles.dashboardHTML),
        .till: page(EmbeddedFiles.tillHTML),
        .tillWorker: HTTPResponse(.ok, HTTPResponse.javascript, body: Array(EmbeddedFiles.tillSwJS.utf8)),
        .stockEditor: page(EmbeddedFiles.stockHTML),
        .reportsPage: page(EmbeddedFiles.reportsHTML),
        .tillsPage: page(EmbeddedFiles.tillsHTML),
        .tillManifest: HTTPResponse(.ok, HTTPResponse.webManifest, body: Array(EmbeddedFiles.tillWEBMANIFEST.utf8)),
        .tillIcon192: HTTPResponse(.ok, HTTPResponse.png, body: EmbeddedFiles.tillIcon192PNG),
        .tillIcon512: HTTPResponse(.ok, HTTPResponse.png, body: EmbeddedFiles.tillIcon512PNG),
        .openAPI: HTTPResponse(.ok, HTTPResponse.json, body: Array(EmbeddedFiles.openapiJSON.utf8)),
    ]
    private static func page(_ html: String) -> HTTPResponse { HTTPResponse(.ok, HTTPResponse.html, body: Array(html.utf8)) }
    package static let allow = [("Allow", "GET, HEAD")]
    package static let allowPost = [("Allow", "POST")]
    /// Another method than GET or HEAD on a read route (`ReadRoute`).
    private static let readOnly = HTTPResponse.plain(.methodNotAllowed, "GET and HEAD only here (writes: POST /orders, /voids, /restock, /set)",
                                                     headers: allow)
    /// The paths `GET` and `HEAD` answer (`ReadRoute`).
    package static let readPaths = ReadRoute.paths
    private let notFound = HTTPResponse.plain(.notFound, "no such page: try / for the board")
    private let reports: ReportRoutes

    package init(store: FruitStore, auth: ManagerAuth, allowedHosts: [String]) {
        self.store = store
        self.auth = auth
        self.writes = HTTPWrites(store: store, allowedHosts: allowedHosts)
        self.reports = ReportRoutes(store: store)
        self.tills = TillRoutes(store: store)
        self.allowedHosts = allowedHosts
    }

    private let allowedHosts: [String]

    /// What every write route refuses first: another method (405), or a query (a write takes no
    /// parameters: `QueryRules`).
    private static func writeRefusal(_ request: HTTPRequest) -> Route? {
        guard request.method == "POST" else {
            return .response(WriteAnswer.refusal(.methodNotAllowed, .badRequest, "\(request.path) takes POST", headers: allowPost), after: 0)
        }
        if let problem = QueryRules.problem(request.query, path: request.path, known: []) {
            return .response(WriteAnswer.refusal(.badRequest, .badRequest, problem), after: 0)
        }
        return nil
    }

    /// The answer to a request whose body cannot be read (no `Content-Length` on a POST, chunked,
    /// too large): the connection closes after it. On a read route another method is refused
    /// first, as `route` refuses it (405, `Allow: GET, HEAD`): `curl -X POST /backup` learns that
    /// the route takes no POST, not that its POST needs a length. A write's is JSON, as its others.
    /// With what the log says of it.
    package static func bodyRefusal(_ request: HTTPRequest, _ status: HTTPStatus, _ message: String) -> (HTTPResponse, logged: String) {
        if request.method != "GET", request.method != "HEAD", ReadRoute(rawValue: request.path) != nil {
            return (readOnly, "\(request.method) \(request.path): GET and HEAD only (\(message))")
        }
        return (HTTPWrites.paths.contains(request.path) ? WriteAnswer.refusal(status, .badRequest, message) : .plain(status, message), message)
    }

    package func route(_ request: HTTPRequest, client: RequestClient) -> Route {
        if TillRoutes.posts.contains(request.path) {
            if let refused = Self.writeRefusal(request) { return refused }
            if let why = HostCheck.refusal(host: request.header("host"), origin: request.header("origin"), allowed: allowedHosts) {
                Log.warning("HTTP 403 for \(client.description): \(why)", category: .refusals)
                return .response(WriteAnswer.refusal(.forbidden, .forbidden, why), after: 0)
            }
            if request.path != "/tills/pair", let (message, headers) = bearerRefusal(request, client: client) {
                return .response(WriteAnswer.refusal(.unauthorized, .authFailed, message, headers: headers), after: 0)
            }
            if request.path == "/tills/pair", let seconds = auth.mayGuess(peer: client.address) {
                let refusal = Wire.tooManyAuthFailures(retryIn: seconds)
                return .response(WriteAnswer.refusal(.unauthorized, refusal.code, refusal.message,
                                                     headers: [("Retry-After", "\(seconds)")]), after: 0)
            }
            let (response, lsn, paired, revoked) = tills.answer(request, presence: presence)
            if paired != nil { signedIn() }
            // A wrong pairing code counts as a wrong token from its client.
            if request.path == "/tills/pair", response.status == .unauthorized { auth.wrongGuess(peer: client.address) }
            return .tills(response, after: lsn, paired: paired, revoked: revoked)
        }
        if HTTPWrites.paths.contains(request.path) {
            if let refused = Self.writeRefusal(request) { return refused }
            if isDraining() {
                return .response(WriteAnswer.refusal(.serviceUnavailable, .shuttingDown, "shutting down; try again shortly",
                                                    headers: [("Retry-After", "1")]), after: 0)
            }
            let role: ClientRole
            switch writer(of: request, client: client) {
            case .success(let known): role = known
            case .failure(let refused): return .response(refused.response, after: 0)
            }
            let outcome = writes.handle(request, client: client, role: role)
            if case .till(let id) = role { return .change(outcome.response, after: outcome.lsn, events: outcome.events, till: id) }
            return .change(outcome.response, after: outcome.lsn, events: outcome.events, till: nil)
        }
        guard let route = ReadRoute(rawValue: request.path) else { return .response(notFound, after: 0) }
        guard request.method == "GET" || request.method == "HEAD" else { return .response(Self.readOnly, after: 0) }
        // An unknown or repeated query parameter (`QueryRules`): in plain text, as every read's refusal.
        if let problem = QueryRules.problem(request.query, path: request.path, known: route.parameters) {
            return .response(.plain(.badRequest, problem), after: 0)
        }
        if isDraining() {
            return .response(.plain(.serviceUnavailable, request.path == "/healthz" ? "shutting down" : "shutting down; try again shortly",
                                    headers: [("Retry-After", "1")]), after: 0)
        }
        if route.isManagers, let (message, headers) = bearerRefusal(request, client: client) {
            return .response(.plain(.unauthorized, message, headers: headers), after: 0)
        }
        switch route {
        case .board, .boardIndex, .dashboard, .till, .tillWorker, .stockEditor, .reportsPage, .tillsPage, .openAPI,
             .tillManifest, .tillIcon192, .tillIcon512:
            // Public: the manager's pages (the dashboard, the reports, the tills) hold no data;
            // their calls (/sales, /reports/day, /tills/list, ...) carry the token.
            return .response(Self.files[route] ?? notFound, after: 0)
        case .events:
            // The store a Last-Event-ID belongs to: in the id itself (`<store>:<seq>`), or, as the
            // pages send it, in the stream's URL (`/events?store=<id>`), which the browser repeats
            // on every reconnect; an id without a store resumes as before.
            var lastEventID = request.header("last-event-id").flatMap(EventID.init)
            if lastEventID?.store == nil, let store = ReportRoutes.parameters(request.query)["store"] {
                lastEventID?.store = StoreID.isValid(store) ? store : "-"
            }
            return .eventStream(lastEventID: lastEventID)
        case .state:
            let (body, lsn) = store.assumeIsolated {
                (StateJSON.body(menu: $0.menu, seq: $0.ledger.seq, stock: $0.ledger.stock, readOnly: $0.readOnly, store: $0.storeID), $0.lastLSN)
            }
            return .response(HTTPResponse(.ok, HTTPResponse.json, body: Array(body.utf8)), after: lsn)
        case .healthz:
            // Read-only still serves every screen, but a probe must see that changes are refused.
            if let reason = store.assumeIsolated({ $0.readOnly }) {
                return .response(.plain(.serviceUnavailable, "read-only: " + reason), after: 0)
            }
            return .response(.plain(.ok, "ok"), after: 0)
        case .sales, .metrics:
            // Figures as of now, answered once they are on disk like everything else.
            let (sales, readOnly, lsn) = store.assumeIsolated { ($0.salesSnapshot(), $0.readOnly != nil, $0.lastLSN) }
            if route == .sales {
                return .response(HTTPResponse(.ok, HTTPResponse.json, body: Array(SalesJSON.body(sales).utf8)), after: lsn)
            }
            let clients = clientCounts()
            let text = Metrics.text(.current(sales, lineClients: clients.line, eventClients: clients.events, readOnly: readOnly))
            return .response(HTTPResponse(.ok, Metrics.contentType, body: Array(text.utf8)), after: lsn)
        case .tillsList:
            let (response, lsn, _, _) = tills.answer(request, presence: presence)
            return .response(response, after: lsn)
        case .dayReport, .daysCSV, .hoursCSV, .tillsCSV:
            let (response, lsn) = reports.answer(request)
            return .response(response, after: lsn)
        case .backup:
            let (response, lsn) = BackupRoute.answer(store)
            return .response(response, after: lsn)
        case .daySales:
            // Today's sales, for the manager to void one from /reports (the token: `isManagers`).
            let (response, lsn) = DaySalesRoute.answer(request, store: store)
            return .response(response, after: lsn)
        }
    }

    package struct Refused: Error {
        package let response: HTTPResponse
    }

    /// Who a write speaks for. A till sends `Juice-Till: <credential>`; the manager's writes
    /// (`/restock`, `/set`) need the token as before. With a token configured, an order needs a
    /// paired till or the manager; without one, anyone may order (the shared key namespace).
    private func writer(of request: HTTPRequest, client: RequestClient) -> Result<ClientRole, Refused> {
        let challenge = [("WWW-Authenticate", "Bearer realm=\"juice-server\"")]
        let managerPath = !HTTPWrites.tillPaths.contains(request.path)
        // A token sent is checked, also beside a till's credential (a wrong one is refused).
        if managerPath || request.header("authorization") != nil {
            if let (message, headers) = bearerRefusal(request, client: client) {
                return .failure(Refused(response: WriteAnswer.refusal(.unauthorized, .authFailed, message, headers: headers)))
            }
            if managerPath && auth.token != nil { return .success(.manager) }
        }
        if let credential = request.header(TillRoutes.header) {
            switch store.assumeIsolated({ $0.verifyTill(credential) }) {
            case .till(let id):
                guard tillHasRoom(id) else {
                    return .failure(Refused(response: WriteAnswer.refusal(.serviceUnavailable, .busy,
                        "till \(id) has \(TillPresence.maxConnectionsPerTill) connections open: close one", headers: [("Retry-After", "1")])))
                }
                signedIn()
                return .success(.till(id))
            case .revoked:
                return .failure(Refused(response: WriteAnswer.refusal(.unauthorized, .revoked, Wire.tillRevoked.message)))
            case .unknown:
                Log.warning("HTTP \(request.path) refused for \(client.description): unknown till credential", category: .refusals)
                return .failure(Refused(response: WriteAnswer.refusal(.unauthorized, .authFailed, "unknown till credential: pair this till again")))
            }
        }
        guard auth.token != nil, !managerPath else { return .success(.anonymous) }
        guard request.header("authorization") != nil else {
            return .failure(Refused(response: WriteAnswer.refusal(.unauthorized, .forbidden,
                "orders and voids need a paired till: send the Juice-Till header (pair the till at /till with the manager's code)", headers: challenge)))
        }
        if let (message, headers) = bearerRefusal(request, client: client) {
            return .failure(Refused(response: WriteAnswer.refusal(.unauthorized, .authFailed, message, headers: headers)))
        }
        return .success(.manager)
    }

    /// With a manager token configured, the manager's data and writes need `Authorization:
    /// Bearer <token>`, checked in constant time and with the same per-address failure limit as
    /// `AUTH`. Nil: go ahead; else the refusal's message and headers (for a 401).
    private func bearerRefusal(_ request: HTTPRequest, client: RequestClient) -> (String, [(String, String)])? {
        guard auth.token != nil else { return nil }
        let challenge = [("WWW-Authenticate", "Bearer realm=\"juice-server\"")]
        guard let header = request.header("authorization") else {
            return ("this needs the manager token: Authorization: Bearer <token>", challenge)
        }
        let parts = header.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else {
            return ("use Authorization: Bearer <token>", challenge)
        }
        switch auth.verify(Array(parts[1].utf8), peer: client.address) {
        case .accepted:
            signedIn()
            return nil
        case .noTokenConfigured:
            return nil
        case .wrong:
            Log.warning("HTTP \(request.path) refused for \(client.description): wrong token", category: .refusals)
            return (Wire.wrongToken().message, challenge)
        case .tooManyFailures(let seconds):
            return (Wire.tooManyAuthFailures(retryIn: seconds).message, challenge + [("Retry-After", "\(seconds)")])
        }
    }

    /// A seq in decimal (up to 19 digits), or nil.
    package static func seq(_ text: Substring) -> UInt64? {
        guard !text.isEmpty, text.count <= 19, text.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }) else { return nil }
        return UInt64(text)
    }
}

import JuiceCore

/// What each path answers. Public: the board (`/`, `/events`, `/state`) and `/healthz` — the
/// shop's screens and the load balancer's probe. With a manager token configured, the manager's
/// data (`/metrics`, `/sales`) needs `Authorization: Bearer <token>`; the dashboard page itself
/// is public and asks for the token. The writes (`POST /orders`, `/restock`, `/set`) are
/// `HTTPWrites`.
struct HTTPRoutes {
    enum Route {
        /// Answer, once the journal is durable up to `after` (a journal position).
        case response(HTTPResponse, after: UInt64)
        /// A write's answer, and the changes it made (to broadcast after the answer is queued).
        case change(HTTPResponse, after: UInt64, events: [StockEvent])
        /// Open an event stream, resuming after this seq if the browser sent `Last-Event-ID`.
        case eventStream(lastEventID: EventID?)
    }

    let store: FruitStore
    let auth: ManagerAuth
    let writes: HTTPWrites
    /// Whether shutdown has begun (`/healthz` then answers 503).
    var isDraining: () -> Bool = { false }
    /// Told when a request's `Bearer` token checked out: its connection is a known client
    /// (`ConnectionHost.markKnown`).
    var signedIn: () -> Void = {}
    /// The values `/metrics` reports that only the server knows (clients by kind).
    var clientCounts: () -> (line: Int, events: Int) = { (0, 0) }
    private let board = HTTPResponse(.ok, HTTPResponse.html, body: Array(BoardPage.html.utf8))
    private let dashboard = HTTPResponse(.ok, HTTPResponse.html, body: Array(DashboardPage.html.utf8))
    private let till = HTTPResponse(.ok, HTTPResponse.html, body: Array(TillPage.html.utf8))
    private let stockEditor = HTTPResponse(.ok, HTTPResponse.html, body: Array(StockPage.html.utf8))
    private let openAPI = HTTPResponse(.ok, HTTPResponse.json, body: Array(OpenAPIDocument.json.utf8))
    private let reportsPage = HTTPResponse(.ok, HTTPResponse.html, body: Array(ReportsPage.html.utf8))
    private let tillWorker = HTTPResponse(.ok, TillWorker.contentType, body: Array(TillWorker.script.utf8))
    static let allow = [("Allow", "GET, HEAD")]
    static let allowPost = [("Allow", "POST")]
    /// The paths `GET` and `HEAD` answer (`ReadRoute`).
    static let readPaths = ReadRoute.paths
    private let notFound = HTTPResponse.plain(.notFound, "no such page: try / for the board")
    private let reports: ReportRoutes

    init(store: FruitStore, auth: ManagerAuth, allowedHosts: [String]) {
        self.store = store
        self.auth = auth
        self.writes = HTTPWrites(store: store, allowedHosts: allowedHosts)
        self.reports = ReportRoutes(store: store)
    }

    func route(_ request: HTTPRequest, client: RequestClient) -> Route {
        if HTTPWrites.paths.contains(request.path) {
            guard request.method == "POST" else {
                return .response(WriteAnswer.refusal(.methodNotAllowed, "BAD_REQUEST", "\(request.path) takes POST", headers: HTTPRoutes.allowPost), after: 0)
            }
            if isDraining() {
                return .response(WriteAnswer.refusal(.serviceUnavailable, "SHUTTING_DOWN", "shutting down; try again shortly",
                                                    headers: [("Retry-After", "1")]), after: 0)
            }
            let outcome = writes.handle(request, client: client) { bearerRefusal(request, client: client) }
            return .change(outcome.response, after: outcome.lsn, events: outcome.events)
        }
        guard let route = ReadRoute(rawValue: request.path) else { return .response(notFound, after: 0) }
        guard request.method == "GET" || request.method == "HEAD" else {
            return .response(.plain(.methodNotAllowed, "GET and HEAD only here (writes: POST /orders, /restock, /set)", headers: HTTPRoutes.allow), after: 0)
        }
        if isDraining() {
            return .response(.plain(.serviceUnavailable, request.path == "/healthz" ? "shutting down" : "shutting down; try again shortly",
                                    headers: [("Retry-After", "1")]), after: 0)
        }
        switch route {
        case .board, .boardIndex:
            return .response(board, after: 0)
        case .dashboard:
            return .response(dashboard, after: 0)
        case .till:
            return .response(till, after: 0)
        case .stockEditor:
            return .response(stockEditor, after: 0)
        case .openAPI:
            return .response(openAPI, after: 0)
        case .reportsPage:
            // Public, like /dashboard: its data call carries the manager token.
            return .response(reportsPage, after: 0)
        case .tillWorker:
            return .response(tillWorker, after: 0)
        case .events:
            // The store a Last-Event-ID belongs to: in the id itself (`<store>:<seq>`), or, as the
            // pages send it, in the stream's URL (`/events?store=<id>`), which the browser repeats
            // on every reconnect; an id without a store resumes as before.
            var lastEventID = request.header("last-event-id").flatMap(EventID.init)
            if lastEventID?.store == nil, let store = ReportRoutes.parameters(request.query)["store"] {
                lastEventID?.store = StoreIdentity.isValid(store) ? store : "-"
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
            if let (message, headers) = bearerRefusal(request, client: client) { return .response(.plain(.unauthorized, message, headers: headers), after: 0) }
            // Figures as of now, answered once they are on disk like everything else.
            let (sales, readOnly, lsn) = store.assumeIsolated { ($0.salesSnapshot(), $0.readOnly != nil, $0.lastLSN) }
            if route == .sales {
                return .response(HTTPResponse(.ok, HTTPResponse.json, body: Array(SalesJSON.body(sales).utf8)), after: lsn)
            }
            let clients = clientCounts()
            let text = Metrics.text(.current(sales, lineClients: clients.line, eventClients: clients.events, readOnly: readOnly))
            return .response(HTTPResponse(.ok, Metrics.contentType, body: Array(text.utf8)), after: lsn)
        case .dayReport, .daysCSV, .hoursCSV:
            if let (message, headers) = bearerRefusal(request, client: client) { return .response(.plain(.unauthorized, message, headers: headers), after: 0) }
            let (response, lsn) = reports.answer(request)
            return .response(response, after: lsn)
        }
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
    static func seq(_ text: Substring) -> UInt64? {
        guard !text.isEmpty, text.count <= 19, text.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }) else { return nil }
        return UInt64(text)
    }
}

import JuiceCore

/// What each path answers. Public: the board (`/`, `/events`, `/state`) and `/healthz` — the
/// shop's screens and the load balancer's probe. With a manager token configured, the manager's
/// data (`/metrics`, `/sales`) needs `Authorization: Bearer <token>`; the dashboard page itself
/// is public and asks for the token. Nothing here changes stock.
struct HTTPRoutes {
    enum Route {
        /// Answer, once the journal is durable up to `gate`, and close.
        case response(HTTPResponse, gate: UInt64)
        /// Open an event stream, resuming after this seq if the browser sent `Last-Event-ID`.
        case eventStream(lastEventID: UInt64?)
    }

    let store: FruitStore
    let auth: ManagerAuth
    /// Whether shutdown has begun (`/healthz` then answers 503).
    let isDraining: () -> Bool
    /// The values `/metrics` reports that only the server knows (clients by kind).
    let clientCounts: () -> (line: Int, events: Int)
    private let board = HTTPResponse(.ok, HTTPResponse.html, body: Array(BoardPage.html.utf8))
    private let dashboard = HTTPResponse(.ok, HTTPResponse.html, body: Array(DashboardPage.html.utf8))
    static let allow = [("Allow", "GET, HEAD")]

    func route(_ request: HTTPRequest, peer: String) -> Route {
        guard request.method == "GET" || request.method == "HEAD" else {
            return .response(.plain(.methodNotAllowed, "read-only: GET and HEAD only", headers: HTTPRoutes.allow), gate: 0)
        }
        if isDraining() {
            return .response(.plain(.serviceUnavailable, request.path == "/healthz" ? "shutting down" : "shutting down; try again shortly",
                                    headers: [("Retry-After", "1")]), gate: 0)
        }
        switch request.path {
        case "/", "/index.html":
            return .response(board, gate: 0)
        case "/dashboard":
            return .response(dashboard, gate: 0)
        case "/events":
            return .eventStream(lastEventID: request.header("last-event-id").flatMap(HTTPRoutes.seq))
        case "/state":
            let (body, gate) = store.assumeIsolated {
                (StateDocument.json(seq: $0.ledger.seq, stock: $0.ledger.stock, menu: $0.menu), $0.lastLSN)
            }
            return .response(HTTPResponse(.ok, HTTPResponse.json, body: body), gate: gate)
        case "/healthz":
            return .response(.plain(.ok, "ok"), gate: 0)
        default:
            return .response(.plain(.notFound, "no such page: try / for the board"), gate: 0)
        }
    }

    /// A `Last-Event-ID` we can resume from: a seq in decimal. Anything else counts as none
    /// (the stream then starts with the full state).
    static func seq(_ text: String) -> UInt64? {
        guard !text.isEmpty, text.count <= 19, text.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }) else { return nil }
        return UInt64(text)
    }
}

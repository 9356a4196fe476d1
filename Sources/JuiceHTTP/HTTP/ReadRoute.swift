import JuiceCore
import JuiceDomain
import JuicePlatform
import JuiceLog
import JuiceLoop
import JuiceServices
/// Every path `GET` and `HEAD` answer: the one table of the read routes. `HTTPRoutes.route`
/// switches over it with no default, so a route cannot be answered without being here (a case
/// added to the switch alone does not compile), and docs/openapi.json must document exactly
/// these and `HTTPWrites.paths` (OpenAPIRouteTests): no route lives outside the contract. A path
/// outside the table is 404; another method on one inside it, 405 with `Allow: GET, HEAD`.
package enum ReadRoute: String, CaseIterable, Sendable {
    // The shop's pages, public: they hold no data (the manager's ask for the token).
    case board = "/", boardIndex = "/index.html", dashboard = "/dashboard", till = "/till", tillWorker = "/till-sw.js"
    case stockEditor = "/stock", reportsPage = "/reports", tillsPage = "/tills"
    // The till as an installable app: its web app manifest and the manifest's icons.
    case tillManifest = "/till.webmanifest", tillIcon192 = "/till-icon-192.png", tillIcon512 = "/till-icon-512.png"
    // Public data, the probe, and this API's own document.
    case events = "/events", state = "/state", healthz = "/healthz", openAPI = "/openapi.json"
    // The manager's data (with a token configured).
    case sales = "/sales", metrics = "/metrics", tillsList = "/tills/list", dayReport = "/reports/day", daysCSV = "/reports/days.csv", hoursCSV = "/reports/hours.csv"
    case tillsCSV = "/reports/tills.csv", daySales = "/reports/sales", backup = "/backup"

    package static let paths = Set(allCases.map(\.rawValue))

    /// The query parameters it takes (docs/openapi.json documents exactly these: OpenAPIRouteTests);
    /// any other, or one sent twice, is `400` naming it (`QueryRules`). The pages take what their
    /// own scripts and links put there: `lang` (`ko`: Korean, `en`: English, none: the browser's
    /// language), the report's `date`, the stock editor's `fruit` (the till's "restock" link).
    package var parameters: [String] {
        switch self {
        case .board, .boardIndex, .dashboard, .till, .tillsPage: ["lang"]
        case .stockEditor: ["lang", "fruit"]
        case .reportsPage: ["lang", "date"]
        case .events: ["store"]
        case .dayReport, .hoursCSV: ["date"]
        case .daysCSV, .tillsCSV: ["from", "to"]
        case .daySales: ["before"]
        case .tillWorker, .tillManifest, .tillIcon192, .tillIcon512, .state, .healthz, .openAPI, .sales, .metrics, .tillsList, .backup: []
        }
    }

    /// Whether it answers the manager's data: with a token configured, only to a request that
    /// carries it (`Authorization: Bearer <token>`).
    package var isManagers: Bool {
        switch self {
        case .sales, .metrics, .tillsList, .dayReport, .daysCSV, .hoursCSV, .tillsCSV, .daySales, .backup: true
        case .board, .boardIndex, .dashboard, .till, .tillWorker, .stockEditor, .reportsPage, .tillsPage,
             .tillManifest, .tillIcon192, .tillIcon512, .events, .state, .healthz, .openAPI: false
        }
    }
}

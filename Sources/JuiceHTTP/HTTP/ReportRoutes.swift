import JuiceCore
import JuiceDomain
import JuicePlatform
import JuiceLog
import JuiceLoop
import JuiceServices

/// The manager's reports over HTTP, read from the store's history (`SalesHistory`):
///
///     GET /reports/day?date=YYYY-MM-DD            the day as JSON (default today)
///     GET /reports/days.csv?from=YYYY-MM-DD&to=YYYY-MM-DD   a row per day and juice (default: the last 30 days)
///     GET /reports/hours.csv?date=YYYY-MM-DD      a row per hour and juice (default today)
///     GET /reports/tills.csv?from=...&to=...      a row per day and paired till (default: the last 30 days)
///
/// Each is answered once the journal is durable up to what it shows, like `/sales`. The work a
/// request causes is bounded: a CSV spans at most `SalesHistory.keptDays` days, each answer is
/// computed once per change of the history and shared by every client that asks for it
/// (`ReportCache`), and a computed one ends its connection's turn (`FairTurn`).
package struct ReportRoutes {
    package let store: FruitStore

    /// A query's date that is not one.
    private struct BadDate: Error {
        package let name: String
        package var response: HTTPResponse { .plain(.badRequest, "\(name) must be a date YYYY-MM-DD, such as 2026-11-25") }
    }

    package func answer(_ request: HTTPRequest) -> (HTTPResponse, lsn: UInt64) {
        let query = Self.parameters(request.query)
        func day(_ name: String) throws(BadDate) -> Int32? {
            guard let text = query[name] else { return nil }
            guard let day = BusinessCalendar.day(ofDate: text) else { throw BadDate(name: name) }
            return day
        }
        do {
            switch request.path {
            case "/reports/day":
                let date = try day("date")
                return store.assumeIsolated { store in
                    let today = store.today, day = date ?? today
                    let json = store.cachedReport(.dayJSON(day), today: today) { .bytes(Array(store.dayReport($0, day: day, today: today).json.utf8)) }
                    return (HTTPResponse(.ok, HTTPResponse.json, body: Self.bytes(json)), store.lastLSN)
                }
            case "/reports/hours.csv":
                let date = try day("date")
                return store.assumeIsolated { store in
                    let today = store.today, day = date ?? today
                    let csv = store.cachedReport(.hoursCSV(day), today: today) { .bytes(Array(ReportCSV.hours($0, of: day).utf8)) }
                    return (Self.csv(Self.bytes(csv), filename: "juice-hours-\(BusinessCalendar.dateText(day)).csv"), store.lastLSN)
                }
            default:
                let from = try day("from"), to = try day("to")
                return store.assumeIsolated { store in
                    let today = store.today
                    let last = to ?? today
                    let first = from ?? last - DayReport.trendDays + 1
                    guard first <= last else { return (.plain(.badRequest, "from must not be after to"), 0) }
                    guard last - first < SalesHistory.keptDays else {
                        return (.plain(.badRequest, "at most \(SalesHistory.keptDays) days at once (the history keeps that many)"), 0)
                    }
                    let span = "\(BusinessCalendar.dateText(first))-to-\(BusinessCalendar.dateText(last)).csv"
                    if request.path == "/reports/tills.csv" {
                        let tills = store.ledger.tills
                        let csv = store.cachedReport(.tillsCSV(first, last), today: today) { _ in .bytes(Array(ReportCSV.tills(tills, from: first, through: last, priced: store.menu.currency != nil).utf8)) }
                        return (Self.csv(Self.bytes(csv), filename: "juice-tills-" + span), store.lastLSN)
                    }
                    let csv = store.cachedReport(.daysCSV(first, last), today: today) { .bytes(Array(ReportCSV.days($0, from: first, through: last).utf8)) }
                    return (Self.csv(Self.bytes(csv), filename: "juice-days-" + span), store.lastLSN)
                }
            }
        } catch {
            return (error.response, 0)
        }
    }

    private static func csv(_ body: [UInt8], filename: String) -> HTTPResponse {
        HTTPResponse(.ok, ReportCSV.contentType, body: body,
                     headers: [("Content-Disposition", "attachment; filename=\"\(filename)\"")])
    }

    /// A cached answer's bytes (shared, not copied: the response only reads them).
    private static func bytes(_ value: ReportCache.Value) -> [UInt8] {
        guard case .bytes(let bytes) = value else { preconditionFailure("an HTTP report's entry holds its bytes") }
        return bytes
    }

    /// `a=1&b=2` as a dictionary (the dates need no percent-decoding; a name is never repeated nor
    /// unknown here: `QueryRules` refused that before the route ran).
    package static func parameters(_ query: String?) -> [String: String] {
        var out: [String: String] = [:]
        for pair in (query ?? "").split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            out[String(parts[0])] = parts.count == 2 ? String(parts[1]) : ""
        }
        return out
    }
}

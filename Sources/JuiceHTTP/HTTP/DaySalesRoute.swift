import JuiceCore
import JuiceDomain
import JuicePlatform
import JuiceLog
import JuiceLoop
import JuiceServices

/// `GET /reports/sales`: the current business day's sales, newest first, for the manager to void
/// one (PROTOCOL.md, "Reports"; the `/reports` page). Read from the table a VOID looks a sale up in
/// (`DaySales`), so every sale listed is one a void may name, and `voided` says which are undone:
///
///     {"date":"2026-11-25","currency":{"code":"KRW","minor_digits":0},
///      "sales":[{"sale":7,"time":1764045000,"clock":"14:30","juice":"mango-kiwi","count":2,
///                "amount":11000,"by":"till","till":3,"name":"Front","voided":null}, ...],
///      "more":false}
///
/// `time` is unix seconds, `clock` the shop's local time. `by` is `till` (then `till` and `name`
/// say which), `manager` or `other` (an anonymous client). `currency` and `amount` only with
/// prices (`amount` is null for a sale made before the menu had them). At most `pageSize` sales
/// at once: `?before=<seq>` gives the ones older than that sale, and `more` says whether older
/// ones are left, so an answer stays small on the busiest day.
package enum DaySalesRoute {
    package static let pageSize = 500

    package static func answer(_ request: HTTPRequest, store: FruitStore) -> (HTTPResponse, lsn: UInt64) {
        var before = UInt64.max
        if let text = ReportRoutes.parameters(request.query)["before"] {
            guard let seq = HTTPRoutes.seq(Substring(text)) else {
                return (.plain(.badRequest, "before must be a sale's seq, a whole number such as 42"), 0)
            }
            before = seq
        }
        return store.assumeIsolated { store in
            let today = store.today, ledger = store.ledger, menu = store.menu
            let calendar = ledger.history.calendar
            var page: [DaySales.Sale] = [], more = false
            if ledger.sales.day == today {
                for sale in ledger.sales.all.reversed() where sale.seq < before {
                    if page.count == pageSize { more = true; break }
                    page.append(sale)
                }
            }
            let sales = page.map { sale in
                var fields: [(String, String)] = [
                    ("sale", JSONText.number(sale.seq)), ("time", JSONText.number(sale.time)),
                    ("clock", JSONText.string(calendar.slot(at: sale.time).clock(of: sale.time))),
                    ("juice", JSONText.string(menu.juices[sale.juice].name)), ("count", JSONText.number(sale.count)),
                ]
                if menu.currency != nil { fields.append(("amount", sale.amount.map(JSONText.number) ?? "null")) }
                switch sale.by {
                case .till(let id):
                    fields += [("by", JSONText.string("till")), ("till", JSONText.number(id)),
                               ("name", ledger.tills.till(id).map { JSONText.string($0.name) } ?? "null")]
                case .manager:
                    fields += [("by", JSONText.string("manager")), ("till", "null"), ("name", "null")]
                case .anonymous, .unknown:
                    fields += [("by", JSONText.string("other")), ("till", "null"), ("name", "null")]
                }
                fields.append(("voided", sale.voidedBy.map(JSONText.number) ?? "null"))
                return JSONText.object(fields)
            }
            var document: [(String, String)] = [("date", JSONText.string(BusinessCalendar.dateText(today)))]
            if let currency = menu.currency { document.append(("currency", CurrencyJSON.object(currency))) }
            document += [("sales", JSONText.array(sales)), ("more", more ? "true" : "false")]
            return (HTTPResponse(.ok, HTTPResponse.json, body: Array(JSONText.object(document).utf8)), store.lastLSN)
        }
    }
}

extension BusinessCalendar.Slot {
    /// "HH:MM", the local clock time of a moment in this slot.
    fileprivate func clock(of unixSeconds: Int64) -> String {
        BusinessCalendar.clock(Int((unixSeconds + Int64(offset)).modulo(86_400)) / 60)
    }
}

import JuiceCore
import JuicePlatform
import JuiceLog

/// The shop's history as CSV for the books (RFC 4180: CRLF line ends, a header row, a field
/// quoted when it holds a comma, a quote or a line end; UTF-8; ISO dates), so a spreadsheet opens
/// it as it is.
///
///     days.csv:  date,juice,sold,lost,voided,takings,lost_revenue            one row per day and juice
///     hours.csv: date,hour,juice,sold,lost,start,voided,takings,lost_revenue one row per hour (that saw a change) and juice
///     tills.csv: date,till,name,orders,juices,voids,takings                 one row per day and paired till that sold
///
/// The columns added with money come after the ones a sheet made before them reads, so such a
/// sheet still reads. Money is in the currency's minor units (plain digits, for a sum); it is
/// empty where the menu has no prices. `takings` is after voids.
///
/// `start` tells apart the two "01:00" hours of a day that falls back from daylight saving.
package enum ReportCSV {
    package static let contentType = "text/csv; charset=utf-8; header=present"

    package static func days(_ history: SalesHistory, from first: Int32, through last: Int32) -> String {
        var out = "date,juice,sold,lost,voided,takings,lost_revenue\r\n"
        let menu = history.menu
        for (day, counters) in history.totals(from: first, through: last) {
            let date = BusinessCalendar.dateText(day)
            for (j, juice) in menu.juices.enumerated() {
                out += row([date, juice.name, String(counters[.sold, j]), String(counters[.lost, j])] + moneyColumns(counters, j, menu))
            }
        }
        return out
    }

    package static func hours(_ history: SalesHistory, of day: Int32) -> String {
        var out = "date,hour,juice,sold,lost,start,voided,takings,lost_revenue\r\n"
        let menu = history.menu
        let date = BusinessCalendar.dateText(day)
        for (slot, counters) in history.hours(of: day) {
            for (j, juice) in menu.juices.enumerated() {
                out += row([date, slot.label, juice.name, String(counters[.sold, j]), String(counters[.lost, j]), slot.isoStart]
                           + moneyColumns(counters, j, menu))
            }
        }
        return out
    }

    /// A row per day and till that sold, days in order, tills by number.
    package static func tills(_ tills: TillRegistry, from first: Int32, through last: Int32, priced: Bool) -> String {
        var out = "date,till,name,orders,juices,voids,takings\r\n"
        for (day, byTill) in tills.days.filter({ $0.key >= first && $0.key <= last }).sorted(by: { $0.key < $1.key }) {
            for (id, sales) in byTill.sorted(by: { $0.key < $1.key }) {
                // A till's name is the manager's text: quoted as RFC 4180 asks, and kept from
                // reading as a formula in a spreadsheet.
                let name = tills.till(id)?.name ?? "Till \(id)"
                out += row([BusinessCalendar.dateText(day), String(id), safeText(name), String(sales.orders), String(sales.juices),
                            String(sales.voids), priced ? String(sales.takings) : ""])
            }
        }
        return out
    }

    /// `voided,takings,lost_revenue` of juice `j`: the money empty without prices.
    private static func moneyColumns(_ c: SalesHistory.Counters, _ j: Int, _ menu: Menu) -> [String] {
        guard menu.currency != nil else { return [String(c[.voided, j]), "", ""] }
        return [String(c[.voided, j]), String(c[.takings, j] &- c[.voidedAmount, j]), String(c[.lostRevenue, j])]
    }

    /// Text a person typed, as a spreadsheet takes it for text: one that starts with `= + - @`
    /// (or a tab or CR) would be read as a formula, so it gets a leading `'` (OWASP's advice).
    package static func safeText(_ text: String) -> String {
        guard let first = text.first, "=+-@\t\r".contains(first) else { return text }
        return "'" + text
    }

    package static func row(_ fields: [String]) -> String {
        fields.map(field).joined(separator: ",") + "\r\n"
    }

    /// A field as RFC 4180 writes it: quoted (quotes doubled) when it holds `,` `"` CR or LF.
    /// Every text field is a name from the shop's own menu (`NameRule` already refuses `=`, `+`
    /// and `,` in them), never a client's text, so nothing here is a formula a client planted.
    package static func field(_ text: String) -> String {
        guard text.contains(where: { $0 == "," || $0 == "\"" || $0 == "\r" || $0 == "\n" }) else { return text }
        return "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}

import JuiceCore
import JuicePlatform
import JuiceLog

/// One business day of the shop's history, as the manager reads it: the day's totals, its hours,
/// the same weekday a week before, and the 30 days up to it. Made by `SalesHistory.report`;
/// written as a line (`Wire.report`), as JSON (`json`) and as CSV (`ReportCSV`).
package struct DayReport: Sendable {
    package typealias Counters = SalesHistory.Counters
    package let menu: Menu
    package let calendar: BusinessCalendar
    package let day: Int32
    package let isToday: Bool
    package let totals: Counters
    package let hours: [(slot: BusinessCalendar.Slot, counters: Counters)]
    package let weekBefore: Counters
    /// The 30 days ending with `day`, oldest first.
    package let trend: [(day: Int32, counters: Counters)]
    /// Its `OK REPORT` line, worded once (`worded()`) where the report is kept and read by many
    /// (the server's report cache): wording it took most of a kept REPORT's time. Empty: worded
    /// at each `Wire.report`.
    package private(set) var line: [UInt8] = []
    /// Sales per paired till that day, by till number (none: no till sold).
    package var tills: [TillDay] = []

    /// One till's sales on the report's day.
    package struct TillDay: Sendable, Equatable {
        package let till: TillID
        package let name: String
        package let sales: TillRegistry.Sales
        package var orders: UInt64 { sales.orders }
        package var juices: UInt64 { sales.juices }
        package init(till: TillID, name: String, sales: TillRegistry.Sales) {
            self.till = till
            self.name = name
            self.sales = sales
        }
    }

    /// The same report with its line worded now.
    package func worded() -> DayReport {
        var copy = self
        var line: [UInt8] = []
        Wire.report(self, to: &line)
        copy.line = line
        return copy
    }

    package static let trendDays: Int32 = 30

    package var date: String { BusinessCalendar.dateText(day) }

    /// The label of the first hour a fruit ran out in (a change left it at 0), or nil.
    package func ranOut(fruit: Int) -> String? {
        hours.first { $0.counters[.ranOut, fruit] > 0 }?.slot.label
    }
}

extension SalesHistory {
    /// The report of business day `day`; `today` is the business day now.
    package func report(day: Int32, today: Int32) -> DayReport {
        DayReport(menu: menu, calendar: calendar, day: day, isToday: day == today, totals: total(of: day), hours: hours(of: day),
                  weekBefore: total(of: day - 7), trend: totals(from: day - DayReport.trendDays + 1, through: day))
    }
}

extension Wire {
    /// `OK REPORT date=2026-11-25 orders_served=12 orders_refused=3 sold_<juice>=N ... lost_<juice>=N ...`,
    /// every juice of the menu, in the STATS style.
    package static func report(_ report: DayReport, to out: inout [UInt8]) {
        guard report.line.isEmpty else { return out.append(contentsOf: report.line) }
        out.append(ascii: "OK REPORT date=")
        out.append(report.date)
        out.append(ascii: " orders_served=")
        out.append(decimal: report.totals.served)
        out.append(ascii: " orders_refused=")
        out.append(decimal: report.totals.refused)
        for kind in [SalesHistory.Counters.Kind.sold, .lost] {
            for (j, juice) in report.menu.juices.enumerated() {
                out.append(kind == .sold ? " sold_" : " lost_")
                out.append(juice.name)
                out.append(ascii: "=")
                out.append(decimal: report.totals[kind, j])
            }
        }
        appendMoney(report, to: &out)
        // Each paired till that sold that day: its orders and juices (POS "sales by device").
        for till in report.tills {
            out.append(ascii: " till_")
            out.append(decimal: Int(till.till))
            out.append(ascii: "_orders=")
            out.append(decimal: till.orders)
            out.append(ascii: " till_")
            out.append(decimal: Int(till.till))
            out.append(ascii: "_juices=")
            out.append(decimal: till.juices)
            if report.menu.currency != nil {
                out.append(ascii: " till_")
                out.append(decimal: Int(till.till))
                out.append(ascii: "_takings=")
                out.append(decimal: Int(till.sales.takings))
            }
        }
        out.appendLineEnd()
    }

    /// The voids, and with prices the money: `voids= voided_<juice>=...` always;
    /// `currency= takings= voided_amount= lost_revenue= takings_<juice>= lost_revenue_<juice>=
    /// lost_revenue_by_<fruit>=` with prices (`takings`: after voids; minor units).
    private static func appendMoney(_ report: DayReport, to out: inout [UInt8]) {
        let totals = report.totals, menu = report.menu
        func pair(_ name: String, _ value: some BinaryInteger) {
            out.append(ascii: " ")
            out.append(name)
            out.append(ascii: "=")
            out.append(decimal: Int(value))
        }
        pair("voids", totals.total(.voids))
        for (j, juice) in menu.juices.enumerated() { pair("voided_" + juice.name, totals[.voided, j]) }
        guard let currency = menu.currency else { return }
        out.append(ascii: " currency=")
        out.append(currency.code)
        pair("takings", totals.netTakings)
        pair("voided_amount", totals.total(.voidedAmount))
        pair("lost_revenue", totals.total(.lostRevenue))
        for (j, juice) in menu.juices.enumerated() { pair("takings_" + juice.name, totals[.takings, j] &- totals[.voidedAmount, j]) }
        for (j, juice) in menu.juices.enumerated() { pair("lost_revenue_" + juice.name, totals[.lostRevenue, j]) }
        for (i, fruit) in menu.fruits.enumerated() { pair("lost_revenue_by_" + fruit.name, totals[.shortRevenue, i]) }
    }
}

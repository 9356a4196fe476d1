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
        package let orders: UInt64
        package let juices: UInt64
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

    /// `GET /reports/day` (PROTOCOL.md, "Reports"), keys in the contract's order.
    package var json: String {
        func juices(_ c: Counters) -> String {
            JSONText.array(menu.juices.indices.map { j in
                JSONText.object([("juice", JSONText.string(menu.juices[j].name)), ("sold", JSONText.number(c[.sold, j])),
                                 ("lost", JSONText.number(c[.lost, j]))])
            })
        }
        let fruits = menu.fruits.indices.map { i in
            JSONText.object([
                ("fruit", JSONText.string(menu.fruits[i].name)), ("used", JSONText.number(totals[.used, i])),
                ("short", JSONText.number(totals[.short, i])), ("restocked", JSONText.number(totals[.restocked, i])),
                ("sets", JSONText.number(totals[.sets, i])), ("ran_out", ranOut(fruit: i).map(JSONText.string) ?? "null"),
            ])
        }
        let hourList = hours.map { hour in
            let c = hour.counters
            func named(_ kind: Counters.Kind) -> String {
                let names = kind.perJuice ? menu.juices.map(\.name) : menu.fruits.map(\.name)
                return JSONText.object(names.indices.filter { c[kind, $0] > 0 }.map { (names[$0], JSONText.number(c[kind, $0])) })
            }
            return JSONText.object([
                ("hour", JSONText.string(hour.slot.label)), ("start", JSONText.string(hour.slot.isoStart)),
                ("orders_served", JSONText.number(c.served)), ("orders_refused", JSONText.number(c.refused)),
                ("sold", named(.sold)), ("lost", named(.lost)),
                ("ran_out", JSONText.strings(menu.fruits.indices.filter { c[.ranOut, $0] > 0 }.map { menu.fruits[$0].name })),
            ])
        }
        var restocks: [String] = []
        for hour in hours {
            for i in menu.fruits.indices where hour.counters[.restocked, i] > 0 {
                restocks.append(JSONText.object([("hour", JSONText.string(hour.slot.label)), ("fruit", JSONText.string(menu.fruits[i].name)),
                                                 ("amount", JSONText.number(hour.counters[.restocked, i]))]))
            }
        }
        let trendList = trend.map { entry in
            JSONText.object([("date", JSONText.string(BusinessCalendar.dateText(entry.day))),
                             ("sold", JSONText.number(menu.juices.indices.reduce(UInt64(0)) { $0 + entry.counters[.sold, $1] })),
                             ("lost", JSONText.number(menu.juices.indices.reduce(UInt64(0)) { $0 + entry.counters[.lost, $1] }))])
        }
        return JSONText.object([
            ("date", JSONText.string(date)), ("weekday", JSONText.string(BusinessCalendar.weekday(day))),
            ("today", isToday ? "true" : "false"), ("timezone", JSONText.string(calendar.timeZone.identifier)),
            ("day_starts", JSONText.string(calendar.dayStartText)),
            ("orders_served", JSONText.number(totals.served)), ("orders_refused", JSONText.number(totals.refused)),
            ("juices", juices(totals)), ("fruits", JSONText.array(fruits)), ("hours", JSONText.array(hourList)),
            ("restocks", JSONText.array(restocks)),
            ("week_before", JSONText.object([
                ("date", JSONText.string(BusinessCalendar.dateText(day - 7))),
                ("orders_served", JSONText.number(weekBefore.served)), ("orders_refused", JSONText.number(weekBefore.refused)),
                ("juices", juices(weekBefore)),
            ])),
            ("trend", JSONText.array(trendList)),
            ("tills", JSONText.array(tills.map { t in
                JSONText.object([("till", JSONText.number(t.till)), ("name", JSONText.string(t.name)),
                                 ("orders", JSONText.number(t.orders)), ("juices", JSONText.number(t.juices))])
            })),
        ])
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
        }
        out.appendLineEnd()
    }
}

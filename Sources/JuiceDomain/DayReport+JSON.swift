import JuiceCore

/// `GET /reports/day` (PROTOCOL.md, "Reports"), keys in the contract's order. Money (minor units
/// of `currency`) only where the menu has prices: a menu without them shows none.
extension DayReport {
    package var json: String {
        let money = menu.currency != nil
        /// The money keys of a slot's or a day's counters, with prices.
        func moneyFields(_ c: Counters) -> [(String, String)] {
            guard money else { return [] }
            return [("takings", JSONText.number(c.netTakings)), ("voided_amount", JSONText.number(c.total(.voidedAmount))),
                    ("lost_revenue", JSONText.number(c.total(.lostRevenue)))]
        }
        func juices(_ c: Counters) -> String {
            JSONText.array(menu.juices.indices.map { j in
                var fields = [("juice", JSONText.string(menu.juices[j].name)), ("sold", JSONText.number(c[.sold, j])),
                              ("lost", JSONText.number(c[.lost, j])), ("voided", JSONText.number(c[.voided, j]))]
                if money {
                    fields += [("takings", JSONText.number(c[.takings, j] &- c[.voidedAmount, j])),
                               ("lost_revenue", JSONText.number(c[.lostRevenue, j]))]
                }
                return JSONText.object(fields)
            })
        }
        let fruits = menu.fruits.indices.map { i in
            var fields = [
                ("fruit", JSONText.string(menu.fruits[i].name)), ("used", JSONText.number(totals[.used, i])),
                ("short", JSONText.number(totals[.short, i])), ("restocked", JSONText.number(totals[.restocked, i])),
                ("sets", JSONText.number(totals[.sets, i])), ("ran_out", ranOut(fruit: i).map(JSONText.string) ?? "null"),
            ]
            if money { fields.append(("lost_revenue", JSONText.number(totals[.shortRevenue, i]))) }
            return JSONText.object(fields)
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
                ("voids", JSONText.number(c.total(.voids))),
            ] + moneyFields(c))
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
                             ("sold", JSONText.number(entry.counters.total(.sold))),
                             ("lost", JSONText.number(entry.counters.total(.lost)))] + moneyFields(entry.counters))
        }
        var fields: [(String, String)] = [
            ("date", JSONText.string(date)), ("weekday", JSONText.string(BusinessCalendar.weekday(day))),
            ("today", isToday ? "true" : "false"), ("timezone", JSONText.string(calendar.timeZone.identifier)),
            ("day_starts", JSONText.string(calendar.dayStartText)),
            ("orders_served", JSONText.number(totals.served)), ("orders_refused", JSONText.number(totals.refused)),
            ("voids", JSONText.number(totals.total(.voids))),
        ]
        if let currency = menu.currency { fields.append(("currency", CurrencyJSON.object(currency))) }
        fields += moneyFields(totals)
        fields += [
            ("juices", juices(totals)), ("fruits", JSONText.array(fruits)), ("hours", JSONText.array(hourList)),
            ("restocks", JSONText.array(restocks)),
            ("week_before", JSONText.object([
                ("date", JSONText.string(BusinessCalendar.dateText(day - 7))),
                ("orders_served", JSONText.number(weekBefore.served)), ("orders_refused", JSONText.number(weekBefore.refused)),
            ] + moneyFields(weekBefore) + [("juices", juices(weekBefore))])),
            ("trend", JSONText.array(trendList)),
            ("tills", JSONText.array(tills.map { t in
                var fields = [("till", JSONText.number(t.till)), ("name", JSONText.string(t.name)),
                              ("orders", JSONText.number(t.orders)), ("juices", JSONText.number(t.juices)),
                              ("voids", JSONText.number(t.sales.voids))]
                if money { fields.append(("takings", JSONText.number(t.sales.takings))) }
                return JSONText.object(fields)
            })),
        ]
        return JSONText.object(fields)
    }
}

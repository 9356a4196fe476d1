import JuiceCore
import JuicePlatform
import JuiceLog

/// The `GET /sales` document (PROTOCOL.md, "HTTP"), keys in the contract's order:
///
///     {"seq":12,"orders_served":9,"orders_refused":3,
///      "juices":[{"name":"mango","aliases":["망고쥬스"],"sold":4,"lost":2}, ...],
///      "fruits":[{"name":"mango","aliases":["망고"],"stock":3,"short":2}, ...],
///      "per_minute":[{"t":1763900000,"served":3,"refused":1}, ...]}
package enum SalesJSON {
    package static let contentType = "application/json; charset=utf-8"

    package static func body(_ sales: SalesValues) -> String {
        let menu = sales.menu
        let juices = menu.juices.indices.map { j in
            JSONText.object([("name", JSONText.string(menu.juices[j].name)), ("aliases", JSONText.strings(menu.juices[j].aliases)),
                             ("sold", JSONText.number(sales.sold[j])), ("lost", JSONText.number(sales.lost[j]))])
        }
        let fruits = menu.fruits.indices.map { i in
            JSONText.object([("name", JSONText.string(menu.fruits[i].name)), ("aliases", JSONText.strings(menu.fruits[i].aliases)),
                             ("stock", JSONText.number(sales.stock[i])), ("short", JSONText.number(sales.short[i]))])
        }
        let minutes = sales.perMinute.map { m in
            JSONText.object([("t", JSONText.number(m.start)), ("served", JSONText.number(m.served)),
                             ("refused", JSONText.number(m.refused))])
        }
        var fields: [(String, String)] = [
            ("seq", JSONText.number(sales.seq)),
            ("orders_served", JSONText.number(sales.ordersServed)),
            ("orders_refused", JSONText.number(sales.ordersRefused)),
            ("juices", JSONText.array(juices)),
            ("fruits", JSONText.array(fruits)),
            ("per_minute", JSONText.array(minutes)),
            ("voids", JSONText.number(sales.money.voids)),
        ]
        // Money only with prices, in minor units, with the currency to read them by.
        if let currency = menu.currency {
            fields += [("currency", CurrencyJSON.object(currency)), ("takings", JSONText.number(sales.money.takings)),
                       ("lost_revenue", JSONText.number(sales.money.lostRevenue)),
                       ("voided_amount", JSONText.number(sales.money.voidedAmount))]
        }
        return JSONText.object(fields)
    }
}

/// A currency as the JSON documents give it: `{"code":"KRW","minor_digits":0}` (a page formats
/// amounts with `Intl.NumberFormat` and these).
package enum CurrencyJSON {
    package static func object(_ currency: Currency) -> String {
        JSONText.object([("code", JSONText.string(currency.code)), ("minor_digits", JSONText.number(currency.minorDigits))])
    }
}

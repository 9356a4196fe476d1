/// The replies a client reads for money: `OK VOID ...` and `OK MENU PRICES ...`, the inverse of
/// `Wire.appendReply` (a void) and `Wire.menuPricesLine`. Strict, like the order reader: a malformed
/// reply is nil, never a wrong void or a wrong price.
extension WireReader {
    /// An applied void as the reply reports it: the voided sale's juice and count, the void's own
    /// change (its seq and the stock it gave back), the sale's seq, the amount given back (with
    /// prices) and the reason. `duplicate`: a retried key, answered with the original reply.
    package struct VoidReply: Sendable, Equatable {
        package var juice: String
        package var count: Int
        package var update: StockUpdate
        package var sale: Int
        package var amount: Int?
        package var reason: VoidReason
        package var duplicate: Bool
    }

    /// The fields after `OK VOID`: `mango-kiwi 2 seq=4 mango=8 kiwi=9 sale=1 amount=11000
    /// reason=wrong-juice`, maybe ` dup` (PROTOCOL.md, "VOID"). Read from the end, where the
    /// reply puts its own words after the stock values: `sale=` is always there, so even a fruit
    /// named `amount` (possible only on a menu without prices) is read as a fruit.
    package static func void(fields: [Substring]) -> VoidReply? {
        var fields = fields[...]
        let duplicate = fields.last == "dup"
        if duplicate { fields = fields.dropLast() }
        guard let last = fields.last, last.hasPrefix("reason="),
              let reason = VoidReason(rawValue: String(last.dropFirst("reason=".count))) else { return nil }
        fields = fields.dropLast()
        let amount = trailing("amount=", &fields)
        guard let sale = trailing("sale=", &fields), sale >= 1,
              fields.count >= 3, let count = Int(fields[fields.startIndex + 1]),
              let update = StockUpdate.parse(fields: Array(fields.dropFirst(2))) else { return nil }
        return VoidReply(juice: String(fields[fields.startIndex]), count: count, update: update, sale: sale,
                         amount: amount, reason: reason, duplicate: duplicate)
    }

    /// The menu's prices: its currency and each juice's price in minor units, in menu order.
    /// `currency` nil: a menu without prices (and `prices` empty).
    package struct PriceList: Sendable, Equatable {
        package var currency: Currency?
        package var prices: [(juice: String, price: Int)]

        package static func == (a: PriceList, b: PriceList) -> Bool {
            a.currency == b.currency && a.prices.elementsEqual(b.prices) { $0.juice == $1.juice && $0.price == $1.price }
        }
    }

    /// The fields after `OK MENU`: `PRICES currency=KRW minor_digits=0 strawberry=6000 ...`, or
    /// `PRICES none`. Nil when malformed, or when `minor_digits` is not what this build knows
    /// for the code (amounts would then be shown off by a power of ten).
    package static func prices(fields: [Substring]) -> PriceList? {
        guard fields.first == "PRICES" else { return nil }
        let rest = fields.dropFirst()
        if rest.count == 1, rest.first == "none" { return PriceList(currency: nil, prices: []) }
        let values = pairs(Array(rest))
        guard values.count == rest.count, values.count >= 3, values[0].key == "currency", values[1].key == "minor_digits",
              let currency = Currency(code: values[0].value), Int(values[1].value) == currency.minorDigits else { return nil }
        var prices: [(juice: String, price: Int)] = []
        for (juice, text) in values.dropFirst(2) {
            guard let price = Int(text), price >= 0, !prices.contains(where: { $0.juice == juice }) else { return nil }
            prices.append((juice, price))
        }
        return PriceList(currency: currency, prices: prices)
    }
}

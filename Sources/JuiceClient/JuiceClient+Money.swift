import JuiceCore

/// The menu's prices, as `MENU PRICES` lists them: what a till shows before the tap. Amounts are
/// whole numbers in the currency's minor unit (won for KRW, cents for USD).
public struct Prices: Sendable, Equatable, CustomStringConvertible {
    /// The menu's currency; nil on a menu without prices (then every price and amount is nil).
    public var currency: Currency?
    /// Each juice's price by name, in minor units.
    public var byJuice: [String: Int]

    public init(currency: Currency?, byJuice: [String: Int]) {
        self.currency = currency
        self.byJuice = byJuice
    }

    /// A menu without prices.
    public static let none = Prices(currency: nil, byJuice: [:])

    /// What `count` of `juice` comes to, in minor units, as the server will charge it now; nil
    /// without prices or for a juice not on the list (an alias: use the juice's name).
    public func amount(_ juice: String, count: Int = 1) -> Int? {
        guard currency != nil, let price = byJuice[juice] else { return nil }
        return price * count
    }

    /// An amount as a person reads it (`₩11,000`, `$4.50`); nil without prices.
    public func format(_ amount: Int) -> String? {
        currency?.format(amount)
    }

    /// `KRW: banana=₩4,000 kiwi=₩4,500`, juices by name; `no prices`.
    public var description: String {
        guard let currency else { return "no prices" }
        return currency.code + ": " + byJuice.sorted { $0.key < $1.key }.map { "\($0.key)=\(currency.format($0.value))" }
            .joined(separator: " ")
    }
}

/// A sale voided: the void's own change and what it undid. The fruit went back to the stock and
/// the amount was reversed; the day's report counts it as voided.
public struct VoidResult: Sendable, Equatable, CustomStringConvertible {
    /// The seq of the void's change (a void is a change of its own, broadcast like any).
    public var seq: Int
    /// The voided sale's seq (its `OrderResult.made(seq:...)`).
    public var sale: Int
    public var juice: String
    public var count: Int
    /// The amount given back, in minor units (the sale's, as priced when it was made); nil on a
    /// menu without prices.
    public var amount: Int?
    public var reason: VoidReason
    /// What each fruit of the recipe holds now, with the sale's fruit back.
    public var stock: [String: Int]

    public init(seq: Int, sale: Int, juice: String, count: Int, amount: Int?, reason: VoidReason, stock: [String: Int]) {
        (self.seq, self.sale, self.juice, self.count) = (seq, sale, juice, count)
        (self.amount, self.reason, self.stock) = (amount, reason, stock)
    }

    /// `voided sale 1 (mango-kiwi 2, wrong-juice) at seq 4: kiwi=9 mango=8`.
    public var description: String {
        "voided sale \(sale) (\(juice) \(count), \(reason.rawValue)) at seq \(seq): \(ShopState.values(stock))"
    }
}

extension JuiceClient {
    /// The menu's prices and currency (`MENU PRICES`): a till shows a sale's total before the tap
    /// with `amount(_:count:)` and `format(_:)`. ``Prices/none`` for a menu without prices.
    /// (``ShopState/menu`` comes from `MENU`, which carries no prices: ask here.)
    public func prices() async throws -> Prices {
        let reply = try await call("MENU PRICES", kind: .read)
        guard case .ok("MENU", let fields) = reply else { throw Self.failure(reply) }
        guard let list = WireReader.prices(fields: fields) else {
            throw JuiceError.unexpectedReply("OK MENU " + fields.joined(separator: " "))
        }
        return Prices(currency: list.currency,
                      byJuice: Dictionary(list.prices.map { ($0.juice, $0.price) }, uniquingKeysWith: { first, _ in first }))
    }

    /// Voids sale `sale` (the seq its `OrderResult.made` gave) for `reason`: its fruit goes back
    /// to the stock and its amount is reversed. A paired till voids its own sales within 10
    /// minutes; the manager (the token) any sale of today's business day.
    ///
    /// Like an order it carries a key (by default the client's prefix and counter) and is sent
    /// again with it after a lost connection, so it is applied once; it throws
    /// `JuiceError.voidInDoubt(key:reason:)` when the server stayed away for the retry bound.
    /// Refusals throw: `.noSuchSale` (not a sale of today), `.alreadyVoided`, `.forbidden`
    /// (another till's sale, or past the window), `.overLimit`; a sale number below 1 or a bad
    /// key throws `.badArgument`, sending nothing.
    @discardableResult
    public func void(sale: Int, reason: VoidReason, key: String? = nil) async throws -> VoidResult {
        let key = key ?? nextKey()
        try Arguments.number(sale, in: 1...Int.max, "the sale")
        try Arguments.key(key)
        let reply = try await call("VOID \(sale) \(reason.rawValue) key=\(key)", kind: .void(key: key))
        guard case .ok("VOID", let fields) = reply else { throw Self.failure(reply) }
        guard let void = WireReader.void(fields: fields) else {
            throw JuiceError.unexpectedReply("OK VOID " + fields.joined(separator: " "))
        }
        return VoidResult(seq: void.update.seq, sale: void.sale, juice: void.juice, count: void.count, amount: void.amount,
                          reason: void.reason, stock: Self.stock(void.update))
    }
}

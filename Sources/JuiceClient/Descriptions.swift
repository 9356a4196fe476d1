// One short line a person can read for each value the API returns, for `print` and for
// `String(reflecting:)` (a log, a failed test's message). The default reflection dumps the menu's
// name tables and wire fragments: kilobytes of hash buckets and byte arrays per line.
// `description` says what it is; `debugDescription` adds the type and case, as Swift's own do.

extension ShopState: CustomStringConvertible, CustomDebugStringConvertible {
    /// `seq 12: apple=10 banana=3 kiwi=0; 4 juices`, fruits in the server's order.
    public var description: String {
        "seq \(seq): \(Self.values(fruits.map { ($0, stock[$0] ?? 0) })); \(juices.count) juice\(juices.count == 1 ? "" : "s")"
    }

    public var debugDescription: String { "ShopState(\(description))" }

    /// `apple=10 banana=3`, or `nothing` for none.
    static func values(_ list: [(String, Int)]) -> String {
        list.isEmpty ? "nothing" : list.map { "\($0.0)=\($0.1)" }.joined(separator: " ")
    }

    /// A dictionary's values in name order (a dictionary has none of its own).
    static func values(_ dictionary: [String: Int]) -> String {
        values(dictionary.sorted { $0.key < $1.key }.map { ($0.key, $0.value) })
    }
}

extension ShopUpdate: CustomStringConvertible, CustomDebugStringConvertible {
    /// `full seq 12: apple=10 …`, `resync seq 3: …`, `change seq 13: apple=9`,
    /// `offline (attempt 2): connection refused`, `online`.
    public var description: String {
        switch self {
        case .full(let state, let resync): return (resync ? "resync " : "full ") + state.description
        case .change(let seq, let changed, _): return "change seq \(seq): \(ShopState.values(changed))"
        case .offline(let attempt, let reason): return "offline (attempt \(attempt)): \(reason)"
        case .online: return "online"
        }
    }

    public var debugDescription: String {
        switch self {
        case .full(let state, let resync): return "ShopUpdate.full(\(state.description), resync: \(resync))"
        case .change(let seq, let changed, _): return "ShopUpdate.change(seq: \(seq), changed: \(ShopState.values(changed)))"
        case .offline(let attempt, let reason): return "ShopUpdate.offline(attempt: \(attempt), reason: \(reason.debugDescription))"
        case .online: return "ShopUpdate.online"
        }
    }
}

extension OrderResult: CustomStringConvertible, CustomDebugStringConvertible {
    /// `made (seq 12): kiwi=7 mango=3 left, amount 11000` (the amount in minor units, when
    /// priced: `Prices.format` shows it as money), `out of stock: needs kiwi=2, has kiwi=0`.
    public var description: String {
        switch self {
        case .made(let seq, let stock, let amount):
            return "made (seq \(seq)): \(ShopState.values(stock)) left" + (amount.map { ", amount \($0)" } ?? "")
        case .outOfStock(let needs, let has): return "out of stock: needs \(ShopState.values(needs)), has \(ShopState.values(has))"
        }
    }

    public var debugDescription: String {
        switch self {
        case .made(let seq, let stock, let amount):
            return "OrderResult.made(seq: \(seq), stock: \(ShopState.values(stock))" + (amount.map { ", amount: \($0))" } ?? ")")
        case .outOfStock(let needs, let has): return "OrderResult.outOfStock(needs: \(ShopState.values(needs)), has: \(ShopState.values(has)))"
        }
    }
}

extension JuiceError: CustomDebugStringConvertible {
    /// The case, then what `description` says: `JuiceError.authFailed: AUTH_FAILED wrong token`.
    public var debugDescription: String { "JuiceError.\(caseName): \(description)" }

    /// The case's name: the label reflection gives a case with values (every case but `closed`).
    var caseName: String {
        Mirror(reflecting: self).children.first?.label ?? "closed"
    }
}

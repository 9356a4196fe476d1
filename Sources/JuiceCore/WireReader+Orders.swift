/// The replies an ordering client reads: `OK ORDER <juice> <count> seq=<n> fruit=left ... [dup]`
/// and `ERR OUT_OF_STOCK needs fruit=n ... has fruit=n ... [dup]`, the inverse of
/// `Wire.appendOrder` and the refusal `FruitStore` builds. Strict: a malformed reply is nil, never
/// a wrong sale.
extension WireReader {
    /// An applied order as the reply reports it. `duplicate` is set when the server answered a
    /// retried key with the original reply (` dup`): the order was applied once, earlier.
    package struct OrderReply: Sendable, Equatable {
        package var juice: String
        package var count: Int
        package var update: StockUpdate
        package var duplicate: Bool
        /// The sale's amount in minor units (a menu with prices), and the void that undid it
        /// (a retry of a voided sale's key).
        package var amount: Int? = nil
        package var voidedBy: Int? = nil
    }

    /// The fields after `OK ORDER`: the juice, the count, the stock it left, then ` amount=<n>`
    /// with prices, ` voided=<seq>` for a voided sale, ` dup` for a retry (PROTOCOL.md, "ORDER").
    package static func order(fields: [Substring]) -> OrderReply? {
        var fields = fields[...]
        let duplicate = fields.last == "dup"
        if duplicate { fields = fields.dropLast() }
        let voidedBy = trailing("voided=", &fields)
        let amount = trailing("amount=", &fields)
        guard fields.count >= 3, let count = Int(fields[fields.startIndex + 1]),
              let update = StockUpdate.parse(fields: Array(fields.dropFirst(2))) else { return nil }
        return OrderReply(juice: String(fields[fields.startIndex]), count: count, update: update, duplicate: duplicate,
                          amount: amount, voidedBy: voidedBy)
    }

    /// The number of a last field `<name><n>`, taken off the fields; nil (fields as they were) if
    /// the last field is not one. A menu with prices has no fruit named `amount` or `voided`
    /// (`Menu`), so a stock value is never read as one. (The void reader uses it too.)
    static func trailing(_ name: String, _ fields: inout ArraySlice<Substring>) -> Int? {
        guard let last = fields.last, last.hasPrefix(name), let n = Int(last.dropFirst(name.count)), n >= 0 else { return nil }
        fields = fields.dropLast()
        return n
    }

    /// A refusal for stock: what the order needed of each short fruit and what there was.
    package struct ShortReply: Sendable, Equatable {
        package var needs: [String: Int]
        package var has: [String: Int]
        package var duplicate: Bool
    }

    /// The message after `ERR OUT_OF_STOCK` (`needs a=1 b=2 has a=0 b=1`, maybe ` dup`).
    package static func outOfStock(message: String) -> ShortReply? {
        var words = message.split(separator: " ")[...]
        let duplicate = words.last == "dup"
        if duplicate { words = words.dropLast() }
        guard words.first == "needs", let split = words.firstIndex(of: "has") else { return nil }
        func values(_ part: ArraySlice<Substring>) -> [String: Int]? {
            var out: [String: Int] = [:]
            for (fruit, text) in pairs(Array(part)) {
                guard let n = Int(text) else { return nil }
                out[fruit] = n
            }
            return out.count == part.count && !out.isEmpty ? out : nil
        }
        guard let needs = values(words[words.index(after: words.startIndex)..<split]),
              let has = values(words[words.index(after: split)...]) else { return nil }
        return ShortReply(needs: needs, has: has, duplicate: duplicate)
    }
}

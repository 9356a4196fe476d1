import JuiceCore
import JuiceDomain
import JuicePlatform
import JuiceLog

/// The reply text a version-1 or version-2 `K` record kept for a remembered key (PROTOCOL.md,
/// Storage), read back into the outcome it says, so an older data directory opens. Nothing
/// writes it any more: a version-3 `K` record keeps the outcome as typed fields
/// (`JournalRecord.KeyOutcome`), so the disk format depends on no protocol's wording. The key
/// memory itself holds values, never text.
package enum RecordedReply {
    /// The outcome of `text` (`OK ORDER mango 1 seq=3 mango=7`, `ERR OUT_OF_STOCK needs banana=2
    /// has banana=1`, `OK RESTOCK seq=2 kiwi=13`, `OK SET seq=3 kiwi=2`) for the write `request`
    /// made with `key`; nil if it does not read as one. A fruit the menu no longer has is left
    /// out of the stock it names; an `OUT_OF_STOCK` fruit it does not name counts as not short.
    package static func outcome(_ text: String, request: KeyMemory.Request, key: String, menu: Menu) -> WriteOutcome? {
        let words = text.split(separator: " ", omittingEmptySubsequences: false)
        switch request {
        case .order(let juice, let count):
            let order = OrderRequest(juice: juice, count: count, key: key)
            if words.starts(with: ["ERR", "OUT_OF_STOCK"]) { return outOfStock(words.dropFirst(2), order, menu: menu) }
            guard words.count >= 5, words[0] == "OK", words[1] == "ORDER", Int(words[3]) == count else { return nil }
            return applied(words.dropFirst(4), .order(order), menu: menu)
        case .restock(let fruit, let amount):
            guard words.count >= 2, words[0] == "OK", words[1] == "RESTOCK" else { return nil }
            return applied(words.dropFirst(2), .restock(fruit: fruit, amount: amount, key: key), menu: menu)
        case .set(let fruit, let amount):
            guard words.count >= 2, words[0] == "OK", words[1] == "SET" else { return nil }
            return applied(words.dropFirst(2), .set(fruit: fruit, amount: amount, key: key), menu: menu)
        case .void:
            return nil  // voids came with version 3, whose keys are typed fields, never reply text
        }
    }

    /// `seq=N fruit=value ...`.
    private static func applied(_ fields: ArraySlice<Substring>, _ kind: Change.Kind, menu: Menu) -> WriteOutcome? {
        guard let first = fields.first, first.hasPrefix("seq="), let seq = UInt64(first.dropFirst(4)) else { return nil }
        var touched: [FruitValue] = []
        for field in fields.dropFirst() {
            guard let (name, value) = pair(field) else { return nil }
            if let fruit = menu.fruitIndex(name) { touched.append(FruitValue(fruit: fruit, value: value)) }
        }
        return .applied(Change(seq: seq, kind: kind, touched: touched))
    }

    /// `needs a=20 b=2 has a=10 b=1`: what each short fruit had.
    private static func outOfStock(_ fields: ArraySlice<Substring>, _ order: OrderRequest, menu: Menu) -> WriteOutcome? {
        guard fields.first == "needs", let split = fields.firstIndex(of: "has") else { return nil }
        var had: [Int: Int] = [:]
        // Empty lists are a reply too: a refusal recorded under an older recipe may name no fruit
        // the current menu finds short ("needs  has "), and the snapshot keeps it so.
        for field in fields[(split + 1)...] where !field.isEmpty {
            guard let (name, value) = pair(field) else { return nil }
            if let fruit = menu.fruitIndex(name) { had[fruit] = value }
        }
        return .outOfStock(order, have: menu.juices[order.juice].recipe.map { had[$0.fruit] ?? Int.max })
    }

    private static func pair(_ field: Substring) -> (String, Int)? {
        guard let eq = field.firstIndex(of: "="), let value = Int(field[field.index(after: eq)...]) else { return nil }
        return (String(field[..<eq]), value)
    }
}

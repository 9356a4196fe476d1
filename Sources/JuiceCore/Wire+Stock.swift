/// Per-menu byte fragments of the stock lines, encoded once when a `Menu` is built (and held by
/// it), so a reply or event is a few block copies and digits: measured on the order hot path,
/// where building the text per reply cost a String and a UTF-8 pass each time.
package struct WireFragments: Sendable {
    /// `" <fruit>="` for each fruit of the menu.
    package let fruitValue: [[UInt8]]
    /// `"OK ORDER <juice> "` for each juice of the menu.
    package let orderReplyPrefix: [[UInt8]]
    /// `"<fruit>":` for each fruit, for the event stream's JSON.
    package let jsonFruitKey: [[UInt8]]

    package init(fruits: [Fruit], juices: [Juice]) {
        fruitValue = fruits.map { Array(" \($0.name)=".utf8) }
        jsonFruitKey = Wire.jsonFruitKeys(fruits)
        orderReplyPrefix = juices.map { Array("OK ORDER \($0.name) ".utf8) }
    }
}

extension Wire {
    private static let seqFragment: [UInt8] = Array(" seq=".utf8)

    /// `OK ORDER mango-kiwi 2 seq=1 mango=6 kiwi=8 amount=11000`, `OK RESTOCK seq=2 kiwi=15`, `OK SET seq=3 kiwi=2`,
    /// `OK VOID mango-kiwi 2 seq=4 mango=8 kiwi=9 sale=1 amount=11000 reason=wrong-juice`; a sale
    /// its key remembers as voided ends with ` voided=<the void's seq>`.
    /// Without `lineEnd` it is the form a keyed order is remembered in (`KeyMemory`).
    package static func appendReply(for change: Change, menu: Menu, to out: inout [UInt8], lineEnd: Bool = true) {
        switch change.kind {
        case .order(let request):
            out.append(contentsOf: menu.wire.orderReplyPrefix[request.juice])
            out.append(decimal: request.count)
        case .restock:
            out.append(ascii: "OK RESTOCK")
        case .set:
            out.append(ascii: "OK SET")
        case .void(_, let juice, let count):
            out.append(ascii: "OK VOID ")
            out.append(menu.juices[juice].name)
            out.append(ascii: " ")
            out.append(decimal: count)
        }
        appendValues(seq: change.seq, change.touched, menu: menu, to: &out)
        if case .void(let request, _, _) = change.kind {
            out.append(ascii: " sale=")
            out.append(decimal: request.sale)
        }
        // Money last, so a reader that knows no prices reads the line as before (PROTOCOL.md).
        if let amount = change.amount {
            out.append(ascii: " amount=")
            out.append(decimal: amount)
        }
        if case .void(let request, _, _) = change.kind {
            out.append(ascii: " reason=")
            out.append(request.reason.rawValue)
        }
        if let voided = change.voidedBy {
            out.append(ascii: " voided=")
            out.append(decimal: voided)
        }
        if lineEnd { out.appendLineEnd() }
    }

    /// The reply line of an applied change without CRLF, as `KeyMemory` keeps it.
    package static func replyLine(for change: Change, menu: Menu) -> [UInt8] {
        var line: [UInt8] = []
        appendReply(for: change, menu: menu, to: &line, lineEnd: false)
        return line
    }

    /// `EVENT STOCK seq=<n> fruit=value ...`: the fruits a change touched, in the reply's order.
    package static func appendEvent(seq: UInt64, _ touched: [FruitValue], menu: Menu, to out: inout [UInt8]) {
        out.append(ascii: "EVENT STOCK")
        appendValues(seq: seq, touched, menu: menu, to: &out)
        out.appendLineEnd()
    }

    /// `OK STOCK seq=<n> fruit=value ...` (all fruits, or one).
    package static func appendStock(seq: UInt64, stock: [Int], only fruit: Int?, menu: Menu, to out: inout [UInt8]) {
        out.append(ascii: "OK STOCK")
        appendValues(seq: seq, values(stock, only: fruit), menu: menu, to: &out)
        out.appendLineEnd()
    }

    /// The event that carries every fruit: what `SINCE` sends when its history cannot reach back.
    package static func appendFullEvent(seq: UInt64, stock: [Int], menu: Menu, to out: inout [UInt8]) {
        appendEvent(seq: seq, values(stock, only: nil), menu: menu, to: &out)
    }

    private static func values(_ stock: [Int], only fruit: Int?) -> [FruitValue] {
        if let fruit { return [FruitValue(fruit: fruit, value: stock[fruit])] }
        return stock.enumerated().map { FruitValue(fruit: $0.offset, value: $0.element) }
    }

    private static func appendValues(seq: UInt64, _ touched: [FruitValue], menu: Menu, to out: inout [UInt8]) {
        out.append(contentsOf: seqFragment)
        out.append(decimal: seq)
        for t in touched {
            out.append(contentsOf: menu.wire.fruitValue[t.fruit])
            out.append(decimal: t.value)
        }
    }

    // MARK: - Stock refusals

    /// The one `OUT_OF_STOCK` text, live and on replay (a ` dup` must repeat it byte for byte):
    /// `needs strawberry=20 has strawberry=10`, naming only the short fruits, in recipe order.
    /// `have` is the stock of each recipe fruit, by recipe position, when the order was refused.
    package static func outOfStock(juice: Int, count: Int, have: [Int], menu: Menu) -> ProtocolError {
        var needs: [String] = []
        var has: [String] = []
        for (i, ingredient) in menu.juices[juice].recipe.enumerated() where i < have.count {
            let need = ingredient.amount * count
            guard have[i] < need else { continue }
            let name = menu.fruits[ingredient.fruit].name
            needs.append("\(name)=\(need)")
            has.append("\(name)=\(have[i])")
        }
        return ProtocolError(.outOfStock, "needs \(needs.joined(separator: " ")) has \(has.joined(separator: " "))")
    }

    /// A key sent again for another request than the one it was first used for.
    package static func keyReused(key: String, for request: KeyRequest, menu: Menu) -> ProtocolError {
        let first = switch request {
        case .order(let juice, let count): "ORDER \(menu.juices[juice].name) \(count)"
        case .restock(let fruit, let amount): "RESTOCK \(menu.fruits[fruit].name) \(amount)"
        case .set(let fruit, let amount): "SET \(menu.fruits[fruit].name) \(amount)"
        case .void(let sale, let reason): "VOID \(sale) \(reason.rawValue)"
        }
        return ProtocolError(.keyReused, "key '\(key)' was used for \(first)")
    }

    /// A new idempotency key the key memory cannot take now (`KeyMemory.admit`): nothing was
    /// applied, and the same write may be sent again after `retry` seconds.
    package static func keyMemoryFull(_ refusal: KeyRefusal) -> ProtocolError {
        switch refusal {
        case .addressFull(let seconds):
            return ProtocolError(.busy, "your address holds its whole share of idempotency keys; retry in \(seconds) s")
        case .full(let seconds):
            return ProtocolError(.busy, "the idempotency key memory is full; retry in \(seconds) s")
        }
    }

    /// A RESTOCK that would take a fruit past `Limits.maxStock`.
    package static func overLimit(fruit: Int, stock: Int, adding amount: Int, menu: Menu) -> ProtocolError {
        ProtocolError(.overLimit, "\(menu.fruits[fruit].name)=\(stock) plus \(amount) would pass the limit of \(Limits.maxStock)")
    }
}

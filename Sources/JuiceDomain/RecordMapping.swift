import JuiceCore
import JuicePlatform
import JuiceLog

// Change ⇄ JournalRecord: what the store writes for a change or a refusal, and what a record
// read back means under the current menu. Records carry names, not menu positions, so a journal
// survives a menu change; a record about a fruit or juice the menu no longer has is skipped, not
// corruption (PROTOCOL.md, Storage).

extension JournalRecord {
    /// The record of a change just applied, at journal position `lsn`, at `time` (unix seconds).
    package init(_ change: Change, lsn: UInt64, menu: Menu, time: Int64, by: Writer) {
        let left = change.touched.map { NamedValue(menu.fruits[$0.fruit].name, $0.value) }
        switch change.kind {
        case .order(let request):
            self = .order(lsn: lsn, seq: change.seq, juice: menu.juices[request.juice].name, count: request.count,
                          key: request.key, left: left, time: time, by: by, amount: change.amount)
        case .restock(let fruit, let amount, let key):
            self = .restock(lsn: lsn, seq: change.seq, fruit: menu.fruits[fruit].name, amount: amount, total: left[0].value,
                            key: key, time: time, by: by)
        case .set(let fruit, let amount, let key):
            self = .set(lsn: lsn, seq: change.seq, fruit: menu.fruits[fruit].name, value: amount, key: key, time: time, by: by)
        case .void(let request, let juice, let count):
            self = .void(lsn: lsn, seq: change.seq, sale: request.sale, juice: menu.juices[juice].name, count: count,
                         reason: request.reason, key: request.key, by: by, amount: change.amount, returned: left, time: time)
        }
    }

    /// A bound on the framed size of any record a change or a refusal writes under `menu`: what
    /// must be free in the journal before the store applies one (`JournalRoom`). Every field is
    /// bounded: names by `NameRule.maxBytes`, a key by `Limits.maxKeyBytes`, numbers and the
    /// time by 20 digits, one name=value per fruit of the longest recipe; the frame adds length and CRC.
    package static func maxBytes(under menu: Menu) -> Int {
        let longestRecipe = menu.juices.map(\.recipe.count).max() ?? 0
        let field = 21  // a space and up to 20 digits
        // Version 3 adds `<by>` (at most `addr:` and a 64-byte group) and an amount.
        return 64 + 5 * field + 70 + field + NameRule.maxBytes + " key=".utf8.count + Limits.maxKeyBytes
            + longestRecipe * (1 + NameRule.maxBytes + 1 + field)
    }

    /// The record of an order refused for stock: what each fruit of the recipe had (`had`, in
    /// recipe order, as `StockLedger.order` reports it).
    package init(refusing request: OrderRequest, had: [Int], lsn: UInt64, menu: Menu, time: Int64, counted: Bool, by: Writer) {
        let recipe = menu.juices[request.juice].recipe
        self = .refusal(lsn: lsn, juice: menu.juices[request.juice].name, count: request.count, key: request.key,
                        had: zip(recipe, had).map { NamedValue(menu.fruits[$0.0.fruit].name, $0.1) }, time: time, counted: counted, by: by,
                        amount: menu.amount(juice: request.juice, count: request.count))
    }

    /// What replaying this journal record does under `menu`; nil for a snapshot record.
    package func replayStep(under menu: Menu) -> ReplayStep? {
        switch self {
        case let .order(_, seq, juice, count, key, left, _, _, amount):
            guard let j = menu.juiceIndex(juice) else { return .skippedChange(seq: seq, order: true) }
            let touched = left.compactMap { v in menu.fruitIndex(v.name).map { FruitValue(fruit: $0, value: v.value) } }
            return .change(Change(seq: seq, kind: .order(OrderRequest(juice: j, count: count, key: key)), touched: touched, amount: amount))
        case let .refusal(_, juice, count, key, had, _, counted, _, amount):
            guard let j = menu.juiceIndex(juice) else { return .skippedRefusal(counted: counted) }
            return .refusal(OrderRequest(juice: j, count: count, key: key), have: JournalRecord.had(had, byRecipeOf: j, menu),
                            amount: amount, counted: counted)
        case let .void(_, seq, sale, juice, count, reason, key, _, amount, returned, _):
            // A void's fruit values are the stock it left, as a change's are; a fruit gone from
            // the menu is skipped, as in every record.
            guard let j = menu.juiceIndex(juice) else { return .skippedChange(seq: seq, order: false) }
            let touched = returned.compactMap { v in menu.fruitIndex(v.name).map { FruitValue(fruit: $0, value: v.value) } }
            return .change(Change(seq: seq, kind: .void(VoidRequest(sale: sale, reason: reason, key: key), juice: j, count: count),
                                  touched: touched, amount: amount))
        case let .restock(_, seq, fruit, amount, total, key, _, _):
            guard let f = menu.fruitIndex(fruit) else { return .skippedChange(seq: seq, order: false) }
            return .change(Change(seq: seq, kind: .restock(fruit: f, amount: amount, key: key), touched: [FruitValue(fruit: f, value: total)]))
        case let .set(_, seq, fruit, value, key, _, _):
            guard let f = menu.fruitIndex(fruit) else { return .skippedChange(seq: seq, order: false) }
            return .change(Change(seq: seq, kind: .set(fruit: f, amount: value, key: key), touched: [FruitValue(fruit: f, value: value)]))
        default:
            return nil
        }
    }

    /// A refusal's recorded stock, by the juice's current recipe: matched by fruit name, so a
    /// menu changed since the record was written cannot shift the values onto other fruits; a
    /// recipe fruit the record does not list gets `Int.max` (not short: nothing says it was).
    package static func had(_ had: [NamedValue], byRecipeOf juice: Int, _ menu: Menu) -> [Int] {
        menu.juices[juice].recipe.map { ingredient in
            had.first { menu.fruitIndex($0.name) == ingredient.fruit }?.value ?? Int.max
        }
    }
}

extension JournalRecord {
    /// A remembered key's first outcome as a snapshot keeps it (typed, version 3).
    package static func keyOutcome(_ first: WriteOutcome, menu: Menu) -> KeyOutcome? {
        func named(_ values: [FruitValue]) -> [NamedValue] { values.map { NamedValue(menu.fruits[$0.fruit].name, $0.value) } }
        switch first {
        case .applied(let change):
            let touched = named(change.touched)
            switch change.kind {
            case .order(let r):
                return .applied(seq: change.seq, write: .order, name: menu.juices[r.juice].name, number: r.count, touched: touched,
                                amount: change.amount, voidedBy: change.voidedBy)
            case .restock(let fruit, let amount, _):
                return .applied(seq: change.seq, write: .restock, name: menu.fruits[fruit].name, number: amount, touched: touched)
            case .set(let fruit, let amount, _):
                return .applied(seq: change.seq, write: .set, name: menu.fruits[fruit].name, number: amount, touched: touched)
            case .void(let request, let juice, let count):
                return .voided(seq: change.seq, sale: request.sale, reason: request.reason, juice: menu.juices[juice].name,
                               count: count, amount: change.amount, touched: touched)
            }
        case .outOfStock(let request, let have):
            // A fruit the record did not list (`Int.max`) is left out, as it was.
            let had = zip(menu.juices[request.juice].recipe, have).filter { $0.1 != Int.max }
                .map { NamedValue(menu.fruits[$0.0.fruit].name, $0.1) }
            return .short(juice: menu.juices[request.juice].name, count: request.count, had: had)
        default:
            return nil
        }
    }

    /// The outcome a snapshot's typed key record says, under `menu`; nil when its juice or fruit
    /// is gone from the menu (the key is then forgotten, as with every record about it).
    package static func firstOutcome(_ outcome: KeyOutcome, key: String, menu: Menu) -> WriteOutcome? {
        func touched(_ values: [NamedValue]) -> [FruitValue] {
            values.compactMap { v in menu.fruitIndex(v.name).map { FruitValue(fruit: $0, value: v.value) } }
        }
        switch outcome {
        case let .applied(seq, write, name, number, values, amount, voidedBy):
            let kind: Change.Kind
            switch write {
            case .order:
                guard let j = menu.juiceIndex(name) else { return nil }
                kind = .order(OrderRequest(juice: j, count: number, key: key))
            case .restock:
                guard let f = menu.fruitIndex(name) else { return nil }
                kind = .restock(fruit: f, amount: number, key: key)
            case .set:
                guard let f = menu.fruitIndex(name) else { return nil }
                kind = .set(fruit: f, amount: number, key: key)
            }
            return .applied(Change(seq: seq, kind: kind, touched: touched(values), amount: amount, voidedBy: voidedBy))
        case let .voided(seq, sale, reason, juice, count, amount, values):
            guard let j = menu.juiceIndex(juice) else { return nil }
            return .applied(Change(seq: seq, kind: .void(VoidRequest(sale: sale, reason: reason, key: key), juice: j, count: count),
                                   touched: touched(values), amount: amount))
        case let .short(juice, count, had):
            guard let j = menu.juiceIndex(juice) else { return nil }
            return .outOfStock(OrderRequest(juice: j, count: count, key: key), have: Self.had(had, byRecipeOf: j, menu))
        }
    }
}

/// What one journal record does to a store being recovered.
package enum ReplayStep {
    /// An applied change, to replay.
    case change(Change)
    /// An order refused for stock: it counts as refused and as lost sales (unless `counted` is
    /// false), and its key is remembered. `have` is each recipe fruit's recorded stock.
    case refusal(OrderRequest, have: [Int], amount: Int?, counted: Bool)
    /// A change about a juice or fruit the menu no longer has: it still takes its seq.
    case skippedChange(seq: UInt64, order: Bool)
    /// A refusal of a juice the menu no longer has: it still counts as refused (if counted).
    case skippedRefusal(counted: Bool)
}

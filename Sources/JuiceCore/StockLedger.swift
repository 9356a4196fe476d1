/// The stand's state and its rules, as a plain value: stock per fruit, the change counter `seq`,
/// the sales ledger and the remembered order keys. `FruitStore` (an actor) owns one and is the
/// only thing that mutates it; keeping the rules here, free of I/O and concurrency, lets them be
/// unit-tested directly and replayed from the journal at startup.
public struct StockLedger: Sendable {
    public let menu: Menu
    public private(set) var stock: [Int]
    /// The number of applied changes (successful ORDER, RESTOCK, SET) since the store was new.
    public private(set) var seq: UInt64 = 0
    public private(set) var ordersServed: UInt64 = 0
    public private(set) var ordersRefused: UInt64 = 0
    /// Juices sold, per juice of the menu.
    public private(set) var sold: [UInt64]
    /// Lost sales: juices refused for stock (counting `count`), per juice of the menu.
    public private(set) var lost: [UInt64]
    /// Refused orders each fruit was short in (one per order, whatever the count), per fruit.
    public private(set) var short: [UInt64]
    public private(set) var keys = KeyMemory()

    /// A new store: each fruit at the menu's initial stock, else `initialStock` (which, with
    /// `overridingMenu`, applies to every fruit).
    public init(menu: Menu, initialStock: Int = 10, overridingMenu: Bool = false) {
        self.menu = menu
        self.stock = menu.initialStock.map { overridingMenu ? initialStock : ($0 ?? initialStock) }
        self.sold = Array(repeating: 0, count: menu.juices.count)
        self.lost = Array(repeating: 0, count: menu.juices.count)
        self.short = Array(repeating: 0, count: menu.fruits.count)
    }

    /// An order, all or nothing: every fruit of the recipe (times the count) is checked before any
    /// is taken, so a two-fruit juice can never take the first fruit and fail on the second.
    public mutating func order(_ request: OrderRequest) -> OrderOutcome {
        if let key = request.key, let seen = keys[key] {
            guard seen.juice == request.juice, seen.count == request.count else {
                return .keyReused(Wire.keyReused(key: key, juice: seen.juice, count: seen.count, menu: menu))
            }
            return .duplicate(reply: seen.reply)
        }
        let juice = menu.juices[request.juice]
        if juice.recipe.contains(where: { stock[$0.fruit] < $0.amount * request.count }) {
            let have = juice.recipe.map { stock[$0.fruit] }
            countRefusal(request, have: have)
            let error = Wire.outOfStock(juice: request.juice, count: request.count, have: have, menu: menu)
            if let key = request.key {
                keys.remember(key, KeyMemory.Entry(juice: request.juice, count: request.count, reply: Array(error.line.utf8)))
            }
            return .refused(error, have: have)
        }
        var touched: [FruitValue] = []
        touched.reserveCapacity(juice.recipe.count)
        for ingredient in juice.recipe {
            stock[ingredient.fruit] -= ingredient.amount * request.count
            touched.append(FruitValue(fruit: ingredient.fruit, value: stock[ingredient.fruit]))
        }
        seq += 1
        ordersServed += 1
        sold[request.juice] += UInt64(request.count)
        let change = Change(seq: seq, kind: .order(request), touched: touched)
        if let key = request.key {
            keys.remember(key, KeyMemory.Entry(juice: request.juice, count: request.count, reply: Wire.replyLine(for: change, menu: menu)))
        }
        return .applied(change)
    }

    /// Adds to a fruit's stock; refused when it would pass the ceiling.
    public mutating func restock(fruit: Int, amount: Int) -> Result<Change, ProtocolError> {
        guard stock[fruit] <= Limits.maxStock - amount else {
            return .failure(Wire.overLimit(fruit: fruit, stock: stock[fruit], adding: amount, menu: menu))
        }
        stock[fruit] += amount
        seq += 1
        return .success(Change(seq: seq, kind: .restock(fruit: fruit, amount: amount),
                               touched: [FruitValue(fruit: fruit, value: stock[fruit])]))
    }

    /// The stock editor's absolute value (already range-checked by the parser).
    public mutating func set(fruit: Int, amount: Int) -> Change {
        precondition((0...Limits.maxStock).contains(amount), "SET amount out of range")
        stock[fruit] = amount
        seq += 1
        return Change(seq: seq, kind: .set(fruit: fruit, amount: amount), touched: [FruitValue(fruit: fruit, value: amount)])
    }
}

/// A fruit and its stock after a change.
public struct FruitValue: Sendable, Equatable {
    public let fruit: Int
    public let value: Int
    public init(fruit: Int, value: Int) {
        self.fruit = fruit
        self.value = value
    }
}

/// One applied change: what the journal records, the reply reports and the event broadcasts.
public struct Change: Sendable, Equatable {
    public enum Kind: Sendable, Equatable {
        case order(OrderRequest)
        case restock(fruit: Int, amount: Int)
        case set(fruit: Int, amount: Int)
    }
    public let seq: UInt64
    public let kind: Kind
    /// The fruits the change touched, with their new values, in recipe order for an order.
    public let touched: [FruitValue]

    public init(seq: UInt64, kind: Kind, touched: [FruitValue]) {
        self.seq = seq
        self.kind = kind
        self.touched = touched
    }
}

public enum OrderOutcome: Sendable, Equatable {
    case applied(Change)
    /// Out of stock; `have` is the stock of each recipe fruit at the time (for the journal).
    case refused(ProtocolError, have: [Int])
    /// A retry of a keyed order: the original reply line (without CRLF), to send with ` dup`.
    case duplicate(reply: [UInt8])
    case keyReused(ProtocolError)
}

extension StockLedger {
    /// Replays one journal or snapshot fact at startup. Values are taken as recorded, so replay
    /// does not depend on the rules that produced them.
    public mutating func restore(seq: UInt64, ordersServed: UInt64, ordersRefused: UInt64) {
        self.seq = seq
        self.ordersServed = ordersServed
        self.ordersRefused = ordersRefused
    }

    public mutating func restore(fruit: Int, value: Int) {
        stock[fruit] = value
    }

    public mutating func restore(juice: Int, sold: UInt64) {
        self.sold[juice] = sold
    }

    public mutating func restoreKey(_ key: String, _ entry: KeyMemory.Entry) {
        keys.remember(key, entry)
    }

    /// Re-applies a recorded change.
    public mutating func replay(_ change: Change) {
        for t in change.touched { stock[t.fruit] = t.value }
        seq = change.seq
        if case .order(let request) = change.kind {
            ordersServed += 1
            sold[request.juice] += UInt64(request.count)
            if let key = request.key {
                keys.remember(key, KeyMemory.Entry(juice: request.juice, count: request.count, reply: Wire.replyLine(for: change, menu: menu)))
            }
        }
    }

    /// The lost-sales counters of a refusal: the order, its juices (`count` of them), and one
    /// order short for each recipe fruit whose stock was below what the order needed. The same
    /// rule live and on replay, so a restart rebuilds the same counters from `R` records.
    private mutating func countRefusal(_ request: OrderRequest, have: [Int]) {
        ordersRefused += 1
        lost[request.juice] += UInt64(request.count)
        for (ingredient, had) in zip(menu.juices[request.juice].recipe, have) where had < ingredient.amount * request.count {
            short[ingredient.fruit] += 1
        }
    }

    /// Snapshot values of the lost-sales counters.
    public mutating func restore(juice: Int, lost: UInt64) {
        self.lost[juice] = lost
    }

    public mutating func restore(fruit: Int, short: UInt64) {
        self.short[fruit] = short
    }

    /// A recorded change about a fruit or juice the current menu no longer has: it still took
    /// its seq (and counts as an order served).
    public mutating func skip(toSeq seq: UInt64, order: Bool) {
        self.seq = seq
        if order { ordersServed += 1 }
    }

    /// Re-applies a recorded refusal (a refused order changes only the counters and keys).
    /// `have` is the stock of each fruit of the juice's current recipe, in recipe order, as
    /// recorded; `Int.max` for a fruit the record does not list (the recipe changed since), which
    /// is then not counted as short.
    public mutating func replayRefusal(_ request: OrderRequest, have: [Int]) {
        countRefusal(request, have: have)
        guard let key = request.key else { return }
        let error = Wire.outOfStock(juice: request.juice, count: request.count, have: have, menu: menu)
        keys.remember(key, KeyMemory.Entry(juice: request.juice, count: request.count, reply: Array(error.line.utf8)))
    }
}

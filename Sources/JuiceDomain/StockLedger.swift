import JuiceCore
import JuicePlatform
import JuiceLog

/// The stand's state and its rules, as a plain value: stock per fruit, the change counter `seq`,
/// the sales ledger and the remembered order keys. `FruitStore` (an actor) owns one and is the
/// only thing that mutates it; keeping the rules here, free of I/O and concurrency, lets them be
/// unit-tested directly and replayed from the journal at startup.
package struct StockLedger: Sendable {
    package let menu: Menu
    package internal(set) var stock: [Int]
    /// The number of applied changes (successful ORDER, RESTOCK, SET, VOID) since the store was new.
    package internal(set) var seq: UInt64 = 0
    package private(set) var ordersServed: UInt64 = 0
    package private(set) var ordersRefused: UInt64 = 0
    /// Juices sold, per juice of the menu.
    package private(set) var sold: [UInt64]
    /// Lost sales: juices refused for stock (counting `count`), per juice of the menu.
    package private(set) var lost: [UInt64]
    /// Refused orders each fruit was short in (one per order, whatever the count), per fruit.
    package private(set) var short: [UInt64]
    package internal(set) var keys: KeyMemory
    /// Money since the store was created (the snapshot's `3 M`).
    package internal(set) var money = MoneyTotals()
    /// Today's sales, which a VOID may name (`DaySales`).
    package internal(set) var sales = DaySales()
    /// The paired tills, their sales per day, and the pairing codes waiting (`TillRegistry`).
    package var tills = TillRegistry()
    /// The shop's days and hours, from the times of the changes (`SalesHistory`).
    package var history: SalesHistory

    /// A new store: each fruit at the menu's initial stock, else `initialStock` (which, with
    /// `overridingMenu`, applies to every fruit).
    package init(menu: Menu, initialStock: Int = 10, overridingMenu: Bool = false, keyPolicy: KeyMemory.Policy = KeyMemory.Policy(),
                calendar: BusinessCalendar = BusinessCalendar()) {
        self.history = SalesHistory(menu: menu, calendar: calendar)
        self.menu = menu
        self.stock = menu.initialStock.map { overridingMenu ? initialStock : ($0 ?? initialStock) }
        self.sold = Array(repeating: 0, count: menu.juices.count)
        self.lost = Array(repeating: 0, count: menu.juices.count)
        self.short = Array(repeating: 0, count: menu.fruits.count)
        self.keys = KeyMemory(policy: keyPolicy)
    }

    /// An order, all or nothing: every fruit of the recipe (times the count) is checked before any
    /// is taken, so a two-fruit juice can never take the first fruit and fail on the second.
    ///
    /// A keyed order's key is remembered with its outcome, refused or not, under `owner`'s share
    /// of the key memory, aged from `now` (unix seconds); a new key that does not fit is `.busy`
    /// and changes nothing. `countingRefusal`, asked only when the order is refused, says whether
    /// the refusal counts; false answers it the same but leaves it out of the sales figures (the
    /// store's bound on what one client may add to them).
    package mutating func order(_ request: OrderRequest, by owner: String? = nil, at now: Int64 = 0,
                               countingRefusal: () -> Bool = { true }) -> WriteOutcome {
        order(request, in: .shared(address: owner), at: now, countingRefusal: countingRefusal)
    }

    /// An order whose key lives in `scope` (a till's own namespace, or the shared one). With a
    /// `seller`, a sale is noted among today's sales here, from its parts: the store makes one
    /// call into its ledger per order (each is a run-time exclusivity check), and no Change is
    /// copied for it.
    package mutating func order(_ request: OrderRequest, in scope: KeyMemory.Scope, seller: Writer? = nil, at now: Int64,
                               countingRefusal: () -> Bool = { true }) -> WriteOutcome {
        let asked = KeyMemory.Request.order(juice: request.juice, count: request.count)
        if let key = request.key, let settled = settledKey(key, asked, scope: scope, now: now) { return settled }
        let juice = menu.juices[request.juice]
        // The price now, kept with the sale: a later menu never changes what it took.
        let amount = menu.amount(juice: request.juice, count: request.count)
        if juice.recipe.contains(where: { stock[$0.fruit] < $0.amount * request.count }) {
            let have = juice.recipe.map { stock[$0.fruit] }
            if countingRefusal() { countRefusal(request, have: have, amount: amount, at: now) }
            let refused = WriteOutcome.outOfStock(request, have: have)
            if let key = request.key { keys.remember(key, KeyMemory.Entry(first: refused, at: now), in: scope) }
            return refused
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
        if let amount { money.takings += UInt64(amount) }
        history.orderServed(juice: request.juice, count: request.count, touched: touched, amount: amount, at: now)
        if let seller { noteSale(seq: seq, request, amount: amount, by: seller, at: now) }
        return applied(Change(seq: seq, kind: .order(request), touched: touched, amount: amount), key: request.key, in: scope, at: now)
    }

    /// A keyed RESTOCK: applied once per key, as an order is. A refused one (OVER_LIMIT) is not
    /// remembered: it changed nothing, and its retry is judged afresh.
    package mutating func restock(fruit: Int, amount: Int, key: String?, by owner: String?, at now: Int64) -> WriteOutcome {
        restock(fruit: fruit, amount: amount, key: key, in: .shared(address: owner), at: now)
    }

    package mutating func restock(fruit: Int, amount: Int, key: String?, in scope: KeyMemory.Scope, at now: Int64) -> WriteOutcome {
        let asked = KeyMemory.Request.restock(fruit: fruit, amount: amount)
        if let key, let settled = settledKey(key, asked, scope: scope, now: now) { return settled }
        guard let plain = restock(fruit: fruit, amount: amount) else {
            return .overLimit(fruit: fruit, stock: stock[fruit], adding: amount)
        }
        history.restocked(fruit: fruit, amount: amount, at: now)
        return applied(Change(seq: plain.seq, kind: .restock(fruit: fruit, amount: amount, key: key), touched: plain.touched),
                       key: key, in: scope, at: now)
    }

    /// A keyed SET: applied once per key.
    package mutating func set(fruit: Int, amount: Int, key: String?, by owner: String?, at now: Int64) -> WriteOutcome {
        set(fruit: fruit, amount: amount, key: key, in: .shared(address: owner), at: now)
    }

    package mutating func set(fruit: Int, amount: Int, key: String?, in scope: KeyMemory.Scope, at now: Int64) -> WriteOutcome {
        let asked = KeyMemory.Request.set(fruit: fruit, amount: amount)
        if let key, let settled = settledKey(key, asked, scope: scope, now: now) { return settled }
        let plain = set(fruit: fruit, amount: amount)
        history.set(fruit: fruit, to: amount, at: now)
        return applied(Change(seq: plain.seq, kind: .set(fruit: fruit, amount: amount, key: key), touched: plain.touched),
                       key: key, in: scope, at: now)
    }

    /// A write's change, applied: its outcome, remembered under its key (if it has one) so that
    /// a retry gets the same answer.
    mutating func applied(_ change: Change, key: String?, in scope: KeyMemory.Scope, at now: Int64) -> WriteOutcome {
        if let key { keys.remember(key, KeyMemory.Entry(first: .applied(change), at: now), in: scope) }
        return .applied(change)
    }

    /// What a key already decides: a retry's first answer, a key used for something else, or
    /// no room for a new key. Nil: a new key that fits.
    mutating func settledKey(_ key: String, _ asked: KeyMemory.Request, scope: KeyMemory.Scope, now: Int64) -> WriteOutcome? {
        if let seen = keys[key, in: scope] {
            guard seen.request == asked else { return .keyReused(key: key, first: seen.request) }
            return .duplicate(of: seen.first)
        }
        if let refusal = keys.admit(scope, now: now) { return .unavailable(.keyMemoryFull(refusal)) }
        return nil
    }

    /// Adds to a fruit's stock; nil (nothing changes) when it would pass the ceiling.
    package mutating func restock(fruit: Int, amount: Int) -> Change? {
        guard stock[fruit] <= Limits.maxStock - amount else { return nil }
        stock[fruit] += amount
        seq += 1
        return Change(seq: seq, kind: .restock(fruit: fruit, amount: amount), touched: [FruitValue(fruit: fruit, value: stock[fruit])])
    }

    /// The stock editor's absolute value (already range-checked by the parser).
    package mutating func set(fruit: Int, amount: Int) -> Change {
        precondition((0...Limits.maxStock).contains(amount), "SET amount out of range")
        stock[fruit] = amount
        seq += 1
        return Change(seq: seq, kind: .set(fruit: fruit, amount: amount), touched: [FruitValue(fruit: fruit, value: amount)])
    }
}



extension StockLedger {
    /// Replays one journal or snapshot fact at startup. Values are taken as recorded, so replay
    /// does not depend on the rules that produced them.
    package mutating func restore(seq: UInt64, ordersServed: UInt64, ordersRefused: UInt64) {
        self.seq = seq
        self.ordersServed = ordersServed
        self.ordersRefused = ordersRefused
    }

    package mutating func restore(fruit: Int, value: Int) {
        stock[fruit] = value
    }

    /// The money totals as a snapshot recorded them.
    package mutating func restore(money: MoneyTotals) {
        self.money = money
    }

    package mutating func restore(juice: Int, sold: UInt64) {
        self.sold[juice] = sold
    }

    /// An hour of history as a snapshot recorded it.
    package mutating func restoreHistory(_ slot: BusinessCalendar.Slot, _ counters: SalesHistory.Counters) {
        history.restore(slot, counters)
    }

    /// The calendar new changes are counted by (a setting changed at start: the hours already
    /// recorded keep theirs).
    package mutating func setCalendar(_ calendar: BusinessCalendar) {
        history.calendar = calendar
    }

    package mutating func restoreKey(_ key: String, _ entry: KeyMemory.Entry, in scope: KeyMemory.Scope = .shared(address: nil)) {
        keys.remember(key, entry, in: scope)
    }

    /// Re-applies a recorded change; a keyed one's key is remembered as first used at
    /// `keyTime`. `time` is when it happened, from a version-2 record (nil: before history, so
    /// it counts in no day or hour).
    package mutating func replay(_ change: Change, at time: Int64?, keyTime: Int64, scope: KeyMemory.Scope = .shared(address: nil)) {
        for t in change.touched { stock[t.fruit] = t.value }
        seq = change.seq
        let key: String?
        switch change.kind {
        case .order(let request):
            ordersServed += 1
            sold[request.juice] += UInt64(request.count)
            if let amount = change.amount { money.takings += UInt64(amount) }
            key = request.key
            if let time {
                history.orderServed(juice: request.juice, count: request.count, touched: change.touched, amount: change.amount, at: time)
            }
        case .restock(let fruit, let amount, let keyed):
            key = keyed
            if let time { history.restocked(fruit: fruit, amount: amount, at: time) }
        case .set(let fruit, let amount, let keyed):
            key = keyed
            if let time { history.set(fruit: fruit, to: amount, at: time) }
        case .void(let request, _, _):
            key = request.key
            noteVoid(change, at: time)
        }
        if let key { keys.remember(key, KeyMemory.Entry(first: .applied(change), at: keyTime), in: scope) }
    }

    /// A replay of a change as it is live, at `time` (tests; a record always says its own).
    package mutating func replay(_ change: Change) {
        replay(change, at: nil, keyTime: 0)
    }

    /// Forgets every key of a writer's own namespace (a revoked till's).
    package mutating func forgetKeys(of writer: Writer) {
        keys.forget(writer.keyScope)
    }

    /// Forgets the keys older than the retention window (after recovery).
    package mutating func forgetExpiredKeys(now: Int64) {
        keys.forgetExpired(now: now)
    }

    /// The lost-sales counters of a refusal: the order, its juices (`count` of them), and one
    /// order short for each recipe fruit whose stock was below what the order needed. The same
    /// rule live and on replay, so a restart rebuilds the same counters from `R` records.
    private mutating func countRefusal(_ request: OrderRequest, have: [Int], amount: Int?, at time: Int64?) {
        ordersRefused += 1
        lost[request.juice] += UInt64(request.count)
        if let amount { money.lostRevenue += UInt64(amount) }
        var shortFruits: [Int] = []
        for (ingredient, had) in zip(menu.juices[request.juice].recipe, have) where had < ingredient.amount * request.count {
            short[ingredient.fruit] += 1
            shortFruits.append(ingredient.fruit)
        }
        if let time { history.orderRefused(juice: request.juice, count: request.count, short: shortFruits, amount: amount, at: time) }
    }

    /// Snapshot values of the lost-sales counters.
    package mutating func restore(juice: Int, lost: UInt64) {
        self.lost[juice] = lost
    }

    package mutating func restore(fruit: Int, short: UInt64) {
        self.short[fruit] = short
    }

    /// A recorded change about a fruit or juice the current menu no longer has: it still took
    /// its seq (and counts as an order served).
    package mutating func skip(toSeq seq: UInt64, order: Bool) {
        self.seq = seq
        if order { ordersServed += 1 }
    }

    /// Re-applies a recorded refusal (a refused order changes only the counters and keys).
    /// `have` is the stock of each fruit of the juice's current recipe, in recipe order, as
    /// recorded; `Int.max` for a fruit the record does not list (the recipe changed since), which
    /// is then not counted as short.
    /// `amount`: the sale it lost, as recorded (nil: no prices then).
    package mutating func replayRefusal(_ request: OrderRequest, have: [Int], amount: Int? = nil, counted: Bool = true, at time: Int64? = nil,
                                       keyTime: Int64 = 0, scope: KeyMemory.Scope = .shared(address: nil)) {
        if counted { countRefusal(request, have: have, amount: amount, at: time) }
        guard let key = request.key else { return }
        keys.remember(key, KeyMemory.Entry(first: .outOfStock(request, have: have), at: keyTime), in: scope)
    }
}

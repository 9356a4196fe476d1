import JuiceCore

/// Who may void which sale (PROTOCOL.md, "VOID").
package enum VoidAuthority: Sendable, Equatable {
    /// The manager (or anyone, on a server without a manager token): any sale of today.
    case anySale
    /// A paired till: its own sales, no older than `windowSeconds`.
    case till(TillID, windowSeconds: Int64)

    /// A till's window by default: long enough to notice a wrong tap while the customer is at
    /// the counter, short enough that an old sale needs the manager.
    package static let defaultWindowSeconds: Int64 = 600
}

extension StockLedger {
    /// A sale just applied, or replayed, by `writer` at `time`: kept in today's sales (which a
    /// VOID may name) and in its till's day.
    package mutating func noteSale(_ change: Change, by writer: Writer, at time: Int64) {
        guard case .order(let request) = change.kind else { return }
        noteSale(seq: change.seq, request, amount: change.amount, by: writer, at: time)
    }

    /// The same from the sale's parts, as `order` has them (no Change copied on the order path).
    mutating func noteSale(seq: UInt64, _ request: OrderRequest, amount: Int?, by writer: Writer, at time: Int64) {
        // The history just counted this sale: its slot gives the day without a zone lookup,
        // which per order showed in S2's profile before (SalesHistory.update).
        let day = history.day(at: time)
        sales.add(DaySales.Sale(seq: seq, juice: request.juice, count: request.count, amount: amount,
                                by: writer, time: time, key: request.key), day: day)
        if case .till(let till) = writer { tills.countSale(till: till, juices: request.count, amount: amount, day: day) }
    }

    /// VOID: gives a sale of today back, all or nothing, once. A keyed void is applied once per
    /// key; a refused one is not remembered (nothing changed: its retry is judged afresh).
    package mutating func void(_ request: VoidRequest, by writer: Writer, authority: VoidAuthority, at now: Int64) -> WriteOutcome {
        let scope = writer.keyScope
        if let key = request.key, let settled = settledKey(key, .void(sale: request.sale, reason: request.reason), scope: scope, now: now) {
            return settled
        }
        guard let sale = sales.sale(request.sale, today: history.calendar.day(at: now)) else {
            return .voidRefused(.noSuchSale(request.sale))
        }
        if let by = sale.voidedBy { return .voidRefused(.alreadyVoided(sale: sale.seq, by: by)) }
        if case .till(let till, let window) = authority {
            guard sale.by == .till(till) else { return .voidRefused(.notYours(sale: sale.seq)) }
            // Both ways: a clock set back must not make an old sale young again.
            guard abs(now - sale.time) <= window else { return .voidRefused(.windowPassed(sale: sale.seq, seconds: Int(window))) }
        }
        let recipe = menu.juices[sale.juice].recipe
        if let full = recipe.first(where: { stock[$0.fruit] > Limits.maxStock - $0.amount * sale.count }) {
            return .voidRefused(.overLimit(sale: sale.seq, fruit: full.fruit))
        }
        var touched: [FruitValue] = []
        for ingredient in recipe {
            stock[ingredient.fruit] += ingredient.amount * sale.count
            touched.append(FruitValue(fruit: ingredient.fruit, value: stock[ingredient.fruit]))
        }
        seq += 1
        let change = Change(seq: seq, kind: .void(request, juice: sale.juice, count: sale.count), touched: touched, amount: sale.amount)
        noteVoid(change, at: now)
        return applied(change, key: request.key, in: scope, at: now)
    }

    /// A void applied (live or replayed): the sale is marked (and its key's answer with it), and
    /// the day counts it as voided in the sale's own hour, apart from the sales (never a negative
    /// sale). `time`: the void's, for a sale the table no longer holds.
    mutating func noteVoid(_ change: Change, at time: Int64?) {
        guard case .void(let request, let juice, let count) = change.kind else { return }
        let sale = sales.day.flatMap { sales.sale(request.sale, today: $0) }
        sales.markVoided(request.sale, by: change.seq)
        money.voids += 1
        money.voidedAmount += UInt64(change.amount ?? 0)
        if let sale, let key = sale.key { keys.markVoided(key, in: sale.by.keyScope, by: change.seq) }
        if let when = sale?.time ?? time {
            history.voided(juice: juice, count: count, amount: change.amount, at: when)
            if case .till(let till)? = sale?.by { tills.countVoid(till: till, amount: change.amount, day: history.calendar.day(at: when)) }
        }
    }

    /// A sale as a snapshot kept it (`3 G`).
    package mutating func restoreSale(_ sale: DaySales.Sale, day: Int32) {
        sales.add(sale, day: day)
    }
}

/// The checks about voids and money (issue 33): tills void some of their own sales through the
/// kills, and every acknowledged void must have been applied exactly once and the day's money
/// must add up to what the tills were told.
extension ChaosCheck {
    /// The acknowledged voids that were applied (answered `OK VOID`), each with the acknowledged
    /// sale it names (nil: no acknowledged sale has that seq).
    static func appliedVoids(_ o: Observations) -> [(void: AcknowledgedVoid, sale: AcknowledgedOrder?)] {
        let sales = Dictionary(o.acknowledged.compactMap { order in order.answer.seq.map { ($0, order) } }, uniquingKeysWith: { first, _ in first })
        return o.voids.filter { $0.answer.seq != nil }.map { ($0, sales[$0.sale]) }
    }

    /// Every acknowledged void applied exactly once: each was applied (no refusal: a till voids
    /// only its own sale of moments ago), names a sale its own till made, and no sale twice; the
    /// day's `voids=` and `voided_<juice>=` grew by exactly them; each void's key sent again gets
    /// its first answer (dup), and each sale's key sent again names the void that undid it (and
    /// no other sale's names one). Its seq and stock are checked with the orders' (no change lost).
    static func voidsAppliedOnce(_ o: Observations) -> Check {
        var wrong: [String] = []
        var voidOf: [Int: AcknowledgedVoid] = [:]
        var voided: [String: Int] = [:]
        for void in o.voids where void.answer.seq == nil {
            wrong.append("\(void.key) (VOID \(void.sale)) was refused: \(void.answer)")
        }
        for (void, sale) in appliedVoids(o) {
            guard case .voided(_, let named, _, _) = void.answer, named == void.sale else {
                wrong.append("\(void.key) asked to void sale \(void.sale), the answer voided \(void.answer)")
                continue
            }
            guard let sale else { wrong.append("\(void.key) voided sale \(void.sale), which no till was told it made"); continue }
            if sale.till != void.till { wrong.append("\(void.key) of till \(void.till) voided till \(sale.till)'s sale \(void.sale)") }
            if let other = voidOf.updateValue(void, forKey: void.sale) { wrong.append("sale \(void.sale) voided by both \(other.key) and \(void.key)") }
            voided[sale.juice, default: 0] += sale.count
        }
        if o.after.voids - o.before.voids != voidOf.count {
            wrong.append("REPORT voids grew by \(o.after.voids - o.before.voids), \(voidOf.count) acknowledged")
        }
        for (juice, count) in o.after.voided.sorted(by: { $0.key < $1.key }) where count - (o.before.voided[juice] ?? 0) != voided[juice] ?? 0 {
            wrong.append("voided_\(juice) grew by \(count - (o.before.voided[juice] ?? 0)), \(voided[juice] ?? 0) acknowledged")
        }
        for resend in o.resentVoids {
            if case .definite(let answer, dup: true) = resend.reply, answer == resend.first { continue }
            wrong.append("\(resend.key) re-sent got \(resend.reply), first answer \(resend.first)")
        }
        for resend in o.resent {
            guard case .definite(let answer, _, let by) = resend.reply, let seq = answer.seq else { continue }
            if by != voidOf[seq]?.answer.seq {
                wrong.append("\(resend.key) (sale \(seq)) re-sent over \(resend.via.rawValue) says voided=\(by.map(String.init) ?? "none"), expected \(voidOf[seq]?.answer.seq.map(String.init) ?? "none")")
            }
        }
        let juices = voided.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
        return Check(name: "every acknowledged void applied exactly once", ok: wrong.isEmpty,
                     detail: wrong.isEmpty ? "\(voidOf.count) voided" + (juices.isEmpty ? "" : " (\(juices))")
                        + "; REPORT agrees; \(o.resentVoids.count) void keys re-sent, each answered dup" : sample(wrong))
    }

    /// The money adds up: each sale's amount is its juice's price times its count, each void's
    /// the amount of the sale it undid, and the day's `takings=` (after voids) grew by exactly
    /// the acknowledged sales' amounts less the acknowledged voids' (`voided_amount=` by the
    /// voids'). Without prices, no answer and no report carries money.
    static func moneyAddsUp(_ o: Observations) -> Check {
        let made = o.acknowledged.filter { $0.answer.seq != nil }
        let voids = appliedVoids(o)
        guard !o.prices.isEmpty else {
            let priced = made.filter { $0.answer.amount != nil }.count + voids.filter { $0.void.answer.amount != nil }.count
            let ok = priced == 0 && o.after.takings == nil
            return Check(name: "the money adds up", ok: ok, detail: ok ? "no prices: no money anywhere" : "\(priced) answers carried an amount on a menu without prices")
        }
        var wrong: [String] = []
        var sold = 0, given = 0
        for order in made {
            let expected = (o.prices[order.juice] ?? 0) * order.count
            if order.answer.amount != expected { wrong.append("\(order.key) (\(order.juice) \(order.count)) amount=\(order.answer.amount.map(String.init) ?? "none"), price says \(expected)") }
            sold += order.answer.amount ?? 0
        }
        for (void, sale) in voids {
            guard case .voided(_, _, _, let amount) = void.answer else { continue }
            if let sale, amount != sale.answer.amount { wrong.append("\(void.key) gave back \(amount.map(String.init) ?? "none"), its sale took \(sale.answer.amount.map(String.init) ?? "none")") }
            given += amount ?? 0
        }
        let takings = (o.after.takings ?? 0) - (o.before.takings ?? 0)
        if o.after.takings == nil || takings != sold - given {
            wrong.append("REPORT takings grew by \(o.after.takings == nil ? "none" : String(takings)), the tills were told \(sold) taken less \(given) voided = \(sold - given)")
        }
        let voidedAmount = (o.after.voidedAmount ?? 0) - (o.before.voidedAmount ?? 0)
        if voidedAmount != given { wrong.append("REPORT voided_amount grew by \(voidedAmount), the voids gave back \(given)") }
        return Check(name: "the money adds up", ok: wrong.isEmpty,
                     detail: wrong.isEmpty ? "takings \(sold) - voided \(given) = \(sold - given), as REPORT says" : sample(wrong))
    }
}

/// The verdict of a chaos run, computed from its observations alone (pure: no sockets, no
/// clock), so that tests can show each check failing on a crafted bad observation.
struct Check: Equatable {
    var name: String
    var ok: Bool
    /// The figures behind it, or what went wrong (a few examples, then a count).
    var detail: String
}

enum ChaosCheck {
    static func run(_ o: Observations) -> [Check] {
        [appliedOnce(o), nothingLost(o), displayInOrder(o), resentGetFirstAnswer(o), everyOrderAnswered(o), noUnplannedExit(o),
         anonymousFloodRefused(o), voidsAppliedOnce(o), moneyAddsUp(o)]
    }

    static func passed(_ checks: [Check]) -> Bool { checks.allSatisfy(\.ok) }

    /// Every acknowledged order applied exactly once: the store's `sold`, stock, seq and order
    /// counters moved by exactly what the acknowledged orders (each key once) account for, and
    /// the acknowledged voids (each gave its sale's fruit back, in a change of its own).
    static func appliedOnce(_ o: Observations) -> Check {
        let made = o.acknowledged.filter { $0.answer.seq != nil }
        let refused = o.acknowledged.count - made.count
        var sold = o.before.sold, stock = o.before.stock
        for order in made {
            sold[order.juice, default: 0] += order.count
            for part in o.recipes[order.juice] ?? [] { stock[part.fruit, default: 0] -= part.amount * order.count }
        }
        let voided = appliedVoids(o)
        for (_, sale) in voided {
            guard let sale else { continue } // a void of no acknowledged sale: the voids check says so
            for part in o.recipes[sale.juice] ?? [] { stock[part.fruit, default: 0] += part.amount * sale.count }
        }
        let changes = made.count + voided.count
        var wrong: [String] = []
        for (juice, expected) in sold.sorted(by: { $0.key < $1.key }) where o.after.sold[juice] != expected {
            wrong.append("sold_\(juice)=\(o.after.sold[juice].map(String.init) ?? "?") expected \(expected)")
        }
        for (fruit, expected) in stock.sorted(by: { $0.key < $1.key }) where o.after.stock[fruit] != expected {
            wrong.append("\(fruit)=\(o.after.stock[fruit].map(String.init) ?? "?") expected \(expected)")
        }
        if o.after.seq != o.before.seq + changes {
            wrong.append("seq=\(o.after.seq) expected \(o.before.seq + changes) (\(o.after.seq - o.before.seq) changes for \(made.count) acknowledged orders and \(voided.count) voids)")
        }
        if o.after.ordersServed != o.before.ordersServed + made.count {
            wrong.append("orders_served=\(o.after.ordersServed) expected \(o.before.ordersServed + made.count)")
        }
        let refusedGrowth = o.after.ordersRefused - o.before.ordersRefused
        if o.otherRefusals ? refusedGrowth < refused : refusedGrowth != refused {
            wrong.append("orders_refused grew by \(refusedGrowth), \(o.otherRefusals ? "at least " : "")\(refused) expected")
        }
        return Check(name: "every acknowledged order applied exactly once", ok: wrong.isEmpty,
                     detail: wrong.isEmpty ? "\(made.count) made, \(refused) refused, \(voided.count) voided; sold, stock, seq and counters agree"
                        : sample(wrong))
    }

    /// No acknowledged change lost: each made order's seq belongs to it alone, is within the
    /// store's history, and the display saw that seq with the stock the order's answer showed.
    /// (A change lost in a crash shows up as its seq reused by another order, or a different
    /// stock at it.)
    static func nothingLost(_ o: Observations) -> Check {
        var owner: [Int: String] = [:]
        var wrong: [String] = []
        var seen: [Int: [String: Int]] = [:]
        for event in o.display where seen[event.seq] == nil { seen[event.seq] = event.stock }
        var unseen = 0
        // The voids' changes too: each seq is one order's or one void's.
        let changes = o.acknowledged.compactMap { order -> (String, Int, [String: Int])? in
            guard case .made(let seq, let stock, _) = order.answer else { return nil }
            return (order.key, seq, stock)
        } + o.voids.compactMap { void -> (String, Int, [String: Int])? in
            guard case .voided(let seq, _, let stock, _) = void.answer else { return nil }
            return (void.key, seq, stock)
        }
        for (key, seq, stock) in changes {
            if let other = owner.updateValue(key, forKey: seq) {
                wrong.append("seq \(seq) acknowledged to both \(other) and \(key)")
            }
            if seq <= o.before.seq || seq > o.after.seq {
                wrong.append("\(key) acknowledged at seq \(seq), outside the store's \(o.before.seq + 1)...\(o.after.seq)")
            }
            guard let event = seen[seq] else { unseen += 1; continue }
            for (fruit, value) in stock.sorted(by: { $0.key < $1.key }) where event[fruit] != value {
                wrong.append("\(key) at seq \(seq) left \(fruit)=\(value), the display saw \(fruit)=\(event[fruit].map(String.init) ?? "none")")
            }
        }
        let made = owner.count
        return Check(name: "no acknowledged change lost", ok: wrong.isEmpty,
                     detail: wrong.isEmpty ? "\(made) seqs, each one order's or void's; \(made - unseen) matched on the display"
                        + (unseen > 0 ? ", \(unseen) inside resyncs" : "") : sample(wrong))
    }

    /// The display saw every seq once, in order: each event is the next seq, except a full state
    /// (a resync, documented for SINCE when the history cannot reach back), which may skip ahead
    /// but never back; and it got to the store's final seq.
    static func displayInOrder(_ o: Observations) -> Check {
        var last = 0, resyncs = 0, skipped = 0
        var wrong: [String] = []
        for event in o.display {
            if event.fullState {
                if event.seq < last {
                    wrong.append("a full state at seq \(event.seq) after seq \(last): the store went back")
                } else if event.seq > last {
                    resyncs += 1
                    skipped += event.seq - last - 1
                }
            } else if event.seq <= last {
                wrong.append("seq \(event.seq) after seq \(last): \(event.seq == last ? "seen twice" : "out of order")")
            } else if event.seq > last + 1 {
                wrong.append("seq \(event.seq) after seq \(last): \(event.seq - last - 1) missing")
            }
            // A full state is the whole store: even one that went back is where it now is.
            last = event.fullState ? event.seq : max(last, event.seq)
        }
        if last != o.after.seq { wrong.append("the display ended at seq \(last), the store at \(o.after.seq)") }
        let figures = "\(o.display.count) events up to seq \(last)" + (resyncs > 0 ? ", \(resyncs) resyncs (full state) skipping \(skipped) seqs" : "")
        return Check(name: "display saw every seq once, in order", ok: wrong.isEmpty,
                     detail: wrong.isEmpty ? figures : sample(wrong))
    }

    /// A re-sent key gets its first answer, marked `dup`, and the re-sends change nothing.
    static func resentGetFirstAnswer(_ o: Observations) -> Check {
        var wrong: [String] = []
        var fresh = 0
        for resend in o.resent {
            switch resend.reply {
            case .definite(let answer, let dup, _) where dup && answer == resend.first:
                continue
            case .definite(let answer, let dup, _):
                if !dup && answer.seq != nil { fresh += 1 }
                wrong.append("\(resend.key) over \(resend.via.rawValue) got \(dup ? "" : "a fresh ")\(answer), first answer \(resend.first)")
            case .retryLater(let why, _), .unexpected(let why):
                wrong.append("\(resend.key) over \(resend.via.rawValue) got \(why)")
            }
        }
        if o.afterResend != o.after {
            wrong.append("the re-sends changed the store: seq \(o.after.seq) -> \(o.afterResend.seq)")
        }
        let summary = fresh > 0 ? "\(fresh) of \(o.resent.count) re-sent keys were applied again; " : ""
        return Check(name: "a re-sent key gets its first answer", ok: wrong.isEmpty,
                     detail: wrong.isEmpty ? "\(o.resent.count) keys re-sent, each answered dup with its first answer"
                        : summary + sample(wrong))
    }

    static func everyOrderAnswered(_ o: Observations) -> Check {
        let wrong = o.unanswered.map { "\($0) never answered" } + o.unexpected
        return Check(name: "every order got a definite answer", ok: wrong.isEmpty,
                     detail: wrong.isEmpty ? "\(o.acknowledged.count) of \(o.acknowledged.count)" : sample(wrong))
    }

    static func noUnplannedExit(_ o: Observations) -> Check {
        Check(name: "the server ended only when killed", ok: o.unplannedExits.isEmpty,
              detail: o.unplannedExits.isEmpty ? "no crash, no exit of its own" : sample(o.unplannedExits))
    }

    /// A stranger's keyed orders never reach the store (the server has a manager token): each is
    /// FORBIDDEN, or BUSY when the anonymous namespace is full. Nothing else.
    static func anonymousFloodRefused(_ o: Observations) -> Check {
        let wrong = o.anonymousFloodAnswers.filter { $0.key != "FORBIDDEN" && $0.key != "BUSY" && $0.value > 0 }
        let tally = o.anonymousFloodAnswers.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }
        return Check(name: "the anonymous flood was refused", ok: wrong.isEmpty,
                     detail: o.anonymousFloodAnswers.isEmpty ? "no anonymous flood" : tally.joined(separator: ", "))
    }

    /// The first few problems and how many there were in all.
    static func sample(_ problems: [String]) -> String {
        let shown = problems.prefix(3).joined(separator: "; ")
        return problems.count > 3 ? "\(shown); ... (\(problems.count) in all)" : shown
    }
}

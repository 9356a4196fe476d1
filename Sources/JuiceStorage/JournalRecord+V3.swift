import JuiceCore
import JuiceDomain
import JuicePlatform
import JuiceLog

/// Version 3 of the records (PROTOCOL.md, "Storage"): one version for paired tills, typed key
/// outcomes and money, so the disk format changes once. A version-3 payload starts with `3 `
/// and then the record's tag; an older build reading one refuses to start, naming the file
/// and offset, rather than misreading it.
///
///     3 O @<time> <lsn> <seq> <juice> <count> <key=k|-> <by> <amount|-> <fruit>=<left> ...
///     3 R|r @<time> <lsn> <juice> <count> <key=k|-> <by> <amount|-> <fruit>=<had> ...
///     3 A @<time> <lsn> <seq> <fruit> <amount> <total> <key=k|-> <by>
///     3 S @<time> <lsn> <seq> <fruit> <value> <key=k|-> <by>
///     3 P @<time> <lsn> <till> <credential hash> <name>
///     3 N @<time> <lsn> <till> <name>
///     3 X @<time> <lsn> <till>
///     3 K @<time> <by> <key> applied <seq> ORDER|RESTOCK|SET <name> <number> <fruit>=<value> ...
///     3 K @<time> <by> <key> short <juice> <count> <fruit>=<had> ...
///     3 Q <YYYY-MM-DD> <till> <orders> <juices> [<amount> <voids> <voided amount>]
///     3 V, 3 G and the K outcomes `sale` and `void`: money (`JournalRecord+Money.swift`)
///
/// `<by>` is who made the write (`Writer.field`: `till:3`, `manager`, `addr:10.0.0.7`, `-`);
/// `<amount>` a sale's or a lost sale's price in the currency's minor unit, `-` without prices.
/// A till's `<name>` is the rest of the record (`TillName`).


extension JournalRecord {

    /// The version-3 payload, or nil for a record of an older version.
    package var payloadV3: String? {
        switch self {
        case .order(_, _, _, _, _, _, _, let by, _), .refusal(_, _, _, _, _, _, _, let by, _):
            guard by != nil else { return nil }
            var out: [UInt8] = []
            appendPayload(to: &out)
            return String(decoding: out, as: UTF8.self)
        case let .restock(lsn, seq, fruit, amount, total, key, time, by?):
            return "3 A \(Self.v3Stamp(time)) \(lsn) \(seq) \(fruit) \(amount) \(total) \(Self.keyField(key)) \(by.field)"
        case let .set(lsn, seq, fruit, value, key, time, by?):
            return "3 S \(Self.v3Stamp(time)) \(lsn) \(seq) \(fruit) \(value) \(Self.keyField(key)) \(by.field)"
        case let .tillPaired(lsn, till, hash, name, time):
            return "3 P \(Self.v3Stamp(time)) \(lsn) \(till) \(hash) \(name)"
        case let .tillRenamed(lsn, till, name, time):
            return "3 N \(Self.v3Stamp(time)) \(lsn) \(till) \(name)"
        case let .tillRevoked(lsn, till, time):
            return "3 X \(Self.v3Stamp(time)) \(lsn) \(till)"
        case let .scopedKey(key, by, outcome, time):
            return "3 K \(Self.v3Stamp(time)) \(by.field) \(key) " + Self.outcomeFields(outcome)
        case let .tillDay(day, till, sales):
            let date = BusinessCalendar.dateText(day)
            // The money fields only where there is money: a day without reads as it did before prices.
            guard sales.amount == 0 && sales.voids == 0 && sales.voidedAmount == 0 else {
                return "3 Q \(date) \(till) \(sales.orders) \(sales.juices) \(sales.amount) \(sales.voids) \(sales.voidedAmount)"
            }
            return "3 Q \(date) \(till) \(sales.orders) \(sales.juices)"
        case .void, .sale, .money:
            return moneyPayload
        default:
            return nil
        }
    }

    private static func v3Stamp(_ time: Int64?) -> String {
        "@\(min(max(time ?? 0, times.lowerBound), times.upperBound))"
    }

    /// A till's pairing, renaming or revoking (journal records with an lsn and no seq).
    package var isTillRecord: Bool {
        switch self {
        case .tillPaired, .tillRenamed, .tillRevoked: return true
        default: return false
        }
    }

    /// Who made it, for a version-3 record of a write.
    package var writer: Writer? {
        switch self {
        case .order(_, _, _, _, _, _, _, let by, _), .refusal(_, _, _, _, _, _, _, let by, _), .restock(_, _, _, _, _, _, _, let by),
             .set(_, _, _, _, _, _, let by):
            return by
        case .scopedKey(_, let by, _, _), .void(_, _, _, _, _, _, _, let by, _, _, _):
            return by
        default:
            return nil
        }
    }
}
extension JournalRecord {
    /// A version-3 payload (after its `3 `).
    package static func parseV3(_ payload: ArraySlice<UInt8>) throws(Defect) -> JournalRecord {
        guard payload.count >= 2, payload[payload.startIndex + 1] == ASCII.space else { throw Defect("a version-3 record without a tag") }
        let tag = payload[payload.startIndex]
        // A till's name is the rest of its record, spaces and all.
        var splits = Int.max
        if tag == UInt8(ascii: "P") { splits = 5 } else if tag == UInt8(ascii: "N") { splits = 4 }
        let tokens: [ArraySlice<UInt8>] = payload.split(separator: ASCII.space, maxSplits: splits, omittingEmptySubsequences: false)
        let f = Fields(tokens)
        switch f.tag {
        case "M":
            return try Self.parseMoneyTotals(f)
        case "Q":
            guard f.tokens.count == 5 || f.tokens.count == 8 else { throw Defect("a Q record has 5 or 8 fields, not \(f.tokens.count)") }
            var sales = TillRegistry.Sales(orders: try f.number(3, "orders", 0...maxCounter), juices: try f.number(4, "juices", 0...maxCounter))
            if f.tokens.count == 8 {
                sales.amount = try f.number(5, "amount", 0...maxCounter)
                sales.voids = try f.number(6, "voids", 0...maxCounter)
                sales.voidedAmount = try f.number(7, "voided amount", 0...sales.amount)
            }
            return .tillDay(day: try f.date(1), till: try f.till(2), sales: sales)
        default:
            break
        }
        try f.count(atLeast: 3)
        let time = try f.time(1)
        let counter = 1...maxCounter
        switch f.tag {
        case "O":
            try f.count(atLeast: 10)
            return .order(lsn: try f.number(2, "lsn", counter), seq: try f.number(3, "seq", counter), juice: try f.name(4),
                          count: try f.int(5, "count", 1...Limits.maxOrderCount), key: try f.orderKey(6), left: try f.values(from: 9),
                          time: time, by: try f.writer(7), amount: try f.amount(8))
        case "R", "r":
            try f.count(atLeast: 9)
            return .refusal(lsn: try f.number(2, "lsn", counter), juice: try f.name(3), count: try f.int(4, "count", 1...Limits.maxOrderCount),
                            key: try f.orderKey(5), had: try f.values(from: 8), time: time, counted: f.tag == "R",
                            by: try f.writer(6), amount: try f.amount(7))
        case "A":
            try f.count(exactly: 9)
            let amount = try f.int(5, "amount", 1...Limits.maxStock)
            return .restock(lsn: try f.number(2, "lsn", counter), seq: try f.number(3, "seq", counter), fruit: try f.name(4),
                            amount: amount, total: try f.int(6, "total", amount...Limits.maxStock), key: try f.orderKey(7),
                            time: time, by: try f.writer(8))
        case "S":
            try f.count(exactly: 8)
            return .set(lsn: try f.number(2, "lsn", counter), seq: try f.number(3, "seq", counter), fruit: try f.name(4),
                        value: try f.int(5, "value", 0...Limits.maxStock), key: try f.orderKey(6), time: time, by: try f.writer(7))
        case "P":
            try f.count(exactly: 6)
            return .tillPaired(lsn: try f.number(2, "lsn", counter), till: try f.till(3), hash: try f.hash(4),
                               name: try f.tillName(5), time: time)
        case "N":
            try f.count(exactly: 5)
            return .tillRenamed(lsn: try f.number(2, "lsn", counter), till: try f.till(3), name: try f.tillName(4), time: time)
        case "X":
            try f.count(exactly: 4)
            return .tillRevoked(lsn: try f.number(2, "lsn", counter), till: try f.till(3), time: time)
        case "K":
            try f.count(atLeast: 7)
            let by = try f.writer(2), key = try f.key(3)
            let outcome: KeyOutcome
            switch String(decoding: f.tokens[4], as: UTF8.self) {
            case "applied":
                try f.count(atLeast: 9)
                let (write, number) = try f.keyedWrite(6, number: 8)
                outcome = .applied(seq: try f.number(5, "seq", counter), write: write, name: try f.name(7), number: number,
                                   touched: f.tokens.count > 9 ? try f.values(from: 9) : [])
            case "short":
                outcome = .short(juice: try f.name(5), count: try f.int(6, "count", 1...Limits.maxOrderCount),
                                 had: f.tokens.count > 7 ? try f.values(from: 7) : [])
            case "sale", "void":
                outcome = try Self.moneyOutcome(f)
            default:
                throw Defect("'\(Fields.shown(f.tokens[4]))' is none of applied, short, sale, void")
            }
            return .scopedKey(key: key, by: by, outcome: outcome, time: time)
        case "V", "G":
            return try Self.parseMoney(f, time: time)
        default:
            throw Defect("unknown version-3 record kind '\(Fields.shown(f.tokens[0]))'")
        }
    }
}

extension Fields {
    /// `<by>`: `Writer.field`.
    package func writer(_ i: Int) throws(JournalRecord.Defect) -> Writer {
        guard let text = String(validating: tokens[i], as: UTF8.self), let writer = Writer(field: text) else {
            throw JournalRecord.Defect("'\(Fields.shown(tokens[i]))' is not till:<n>, manager, addr:<address> or -")
        }
        return writer
    }

    /// `-` or a price in minor units.
    package func amount(_ i: Int) throws(JournalRecord.Defect) -> Int? {
        if tokens[i].elementsEqual([UInt8(ascii: "-")]) { return nil }
        return try int(i, "amount", 0...Limits.maxAmount)
    }

    package func till(_ i: Int) throws(JournalRecord.Defect) -> TillID {
        TillID(try number(i, "till", 1...UInt64(TillID.max)))
    }

    /// A SHA-256 in 64 lowercase hex digits.
    package func hash(_ i: Int) throws(JournalRecord.Defect) -> String {
        let t = tokens[i]
        guard t.count == 64, t.allSatisfy({ ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x61 && $0 <= 0x66) }) else {
            throw JournalRecord.Defect("'\(Fields.shown(t))' is not a credential hash")
        }
        return String(decoding: t, as: UTF8.self)
    }

    package func tillName(_ i: Int) throws(JournalRecord.Defect) -> String {
        guard let name = String(validating: tokens[i], as: UTF8.self), TillName.problem(name) == nil else {
            throw JournalRecord.Defect("'\(Fields.shown(tokens[i]))' is not a till's name")
        }
        return name
    }
}

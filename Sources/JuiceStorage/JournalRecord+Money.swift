import JuiceCore
import JuiceDomain

/// The version-3 records money added (PROTOCOL.md, "Storage"), in the version the paired tills
/// began, so the disk format changed once:
///
///     3 V @<time> <lsn> <seq> <sale> <juice> <count> <reason> <key=k|-> <by> <amount|-> <fruit>=<value> ...
///     3 M <takings> <lost revenue> <voids> <voided amount>
///     3 G @<time> <YYYY-MM-DD> <seq> <juice> <count> <by> <amount|-> <key=k|-> <voided seq|->
///     3 K ... sale <seq> <amount|-> <voided seq|-> <juice> <count> <fruit>=<left> ...
///     3 K ... void <seq> <sale> <reason> <amount|-> <juice> <count> <fruit>=<value> ...
///
/// `V` is a void in the journal (a change: it takes a seq); `M` the money totals in the snapshot; `G` one of the business day's sales
/// in the snapshot (what a VOID may still name); a `K` for an order that has an amount, or was
/// voided, keeps both (`applied` stays the form of a RESTOCK's, a SET's and an unpriced order's).
extension JournalRecord {
    /// The payload of a `V` or `G` record.
    var moneyPayload: String? {
        switch self {
        case let .void(lsn, seq, sale, juice, count, reason, key, by, amount, returned, time):
            return "3 V @\(time) \(lsn) \(seq) \(sale) \(juice) \(count) \(reason.rawValue) \(Self.keyField(key)) \(by.field) "
                + Self.optional(amount) + Self.values(returned)
        case let .sale(day, seq, juice, count, by, amount, key, voidedBy, time):
            return "3 G @\(time) \(BusinessCalendar.dateText(day)) \(seq) \(juice) \(count) \(by.field) \(Self.optional(amount)) "
                + "\(Self.keyField(key)) \(Self.optional(voidedBy))"
        case let .money(m):
            return "3 M \(m.takings) \(m.lostRevenue) \(m.voids) \(m.voidedAmount)"
        default:
            return nil
        }
    }

    /// A `K` record's outcome fields.
    static func outcomeFields(_ outcome: KeyOutcome) -> String {
        switch outcome {
        case let .applied(seq, write, name, number, touched, amount, voidedBy):
            if write == .order && (amount != nil || voidedBy != nil) {
                return "sale \(seq) \(optional(amount)) \(optional(voidedBy)) \(name) \(number)" + values(touched)
            }
            return "applied \(seq) \(write.rawValue) \(name) \(number)" + values(touched)
        case let .short(juice, count, had):
            return "short \(juice) \(count)" + values(had)
        case let .voided(seq, sale, reason, juice, count, amount, touched):
            return "void \(seq) \(sale) \(reason.rawValue) \(optional(amount)) \(juice) \(count)" + values(touched)
        }
    }

    private static func optional<N: BinaryInteger>(_ number: N?) -> String {
        number.map { String($0) } ?? "-"
    }

    /// A `K` record's `sale` or `void` outcome (its fields from the 5th on).
    static func moneyOutcome(_ f: Fields) throws(Defect) -> KeyOutcome {
        let counter = 1...maxCounter
        if f.tokens[4].elementsEqual("sale".utf8) {
            try f.count(atLeast: 11)
            return .applied(seq: try f.number(5, "seq", counter), write: .order, name: try f.name(8),
                            number: try f.int(9, "count", 1...Limits.maxOrderCount), touched: try f.values(from: 10),
                            amount: try f.amount(6), voidedBy: try f.optionalSeq(7))
        }
        try f.count(atLeast: 12)
        return .voided(seq: try f.number(5, "seq", counter), sale: try f.number(6, "sale", counter), reason: try f.reason(7),
                       juice: try f.name(9), count: try f.int(10, "count", 1...Limits.maxOrderCount), amount: try f.amount(8),
                       touched: try f.values(from: 11))
    }

    /// `3 M`, which has no time.
    static func parseMoneyTotals(_ f: Fields) throws(Defect) -> JournalRecord {
        try f.count(exactly: 5)
        return .money(MoneyTotals(takings: try f.number(1, "takings", 0...maxCounter), lostRevenue: try f.number(2, "lost revenue", 0...maxCounter),
                                  voids: try f.number(3, "voids", 0...maxCounter), voidedAmount: try f.number(4, "voided amount", 0...maxCounter)))
    }

    /// A `V` or `G` record (after the tag and its time).
    static func parseMoney(_ f: Fields, time: Int64) throws(Defect) -> JournalRecord {
        let counter = 1...maxCounter
        if f.tag == "V" {
            try f.count(atLeast: 12)
            let seq = try f.number(3, "seq", counter)
            let sale = try f.number(4, "sale", 1...maxCounter)
            guard sale < seq else { throw Defect("a void of sale \(sale) at seq \(seq): a void comes after its sale") }
            return .void(lsn: try f.number(2, "lsn", counter), seq: seq, sale: sale, juice: try f.name(5),
                         count: try f.int(6, "count", 1...Limits.maxOrderCount), reason: try f.reason(7), key: try f.orderKey(8),
                         by: try f.writer(9), amount: try f.amount(10), returned: try f.values(from: 11), time: time)
        }
        try f.count(exactly: 10)
        let seq = try f.number(3, "seq", counter)
        let voidedBy = try f.optionalSeq(9)
        if let voidedBy, voidedBy <= seq { throw Defect("sale \(seq) voided at seq \(voidedBy): a void comes after its sale") }
        return .sale(day: try f.date(2), seq: seq, juice: try f.name(4), count: try f.int(5, "count", 1...Limits.maxOrderCount),
                     by: try f.writer(6), amount: try f.amount(7), key: try f.orderKey(8), voidedBy: voidedBy, time: time)
    }
}

extension Fields {
    /// `YYYY-MM-DD`, a business day.
    package func date(_ i: Int) throws(JournalRecord.Defect) -> Int32 {
        guard let day = BusinessCalendar.day(ofDate: String(decoding: tokens[i], as: UTF8.self)) else {
            throw JournalRecord.Defect("'\(Fields.shown(tokens[i]))' is not a date YYYY-MM-DD")
        }
        return day
    }

    /// `-` or a seq.
    func optionalSeq(_ i: Int) throws(JournalRecord.Defect) -> UInt64? {
        if tokens[i].elementsEqual([UInt8(ascii: "-")]) { return nil }
        return try number(i, "seq", 1...JournalRecord.maxCounter)
    }

    /// A void's reason, one of `VoidReason`'s words.
    func reason(_ i: Int) throws(JournalRecord.Defect) -> VoidReason {
        guard let reason = VoidReason(rawValue: String(decoding: tokens[i], as: UTF8.self)) else {
            throw JournalRecord.Defect("'\(Fields.shown(tokens[i]))' is not a void's reason")
        }
        return reason
    }
}

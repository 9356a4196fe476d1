import JuiceCore
import JuiceDomain
import JuicePlatform
import JuiceLog

/// Reading a record's payload back. A payload whose checksum is good but which this parser
/// refuses was not written by a crash cut short: it is corruption, or a newer version's record,
/// and recovery refuses to start on it. So the parser accepts exactly what the writer writes:
///
/// - fields are split on the space *byte* (0x20), never on Characters: a name that begins with a
///   combining mark would otherwise merge with the space before it;
/// - numbers are plain canonical decimals (no sign, no leading zero) within the ranges the
///   store keeps (count 1...1000, stock 0...1,000,000,000, lsn and seq up to `maxCounter`);
/// - names are UTF-8 without white space, controls or `= : + ,`; keys are ORDER keys;
/// - an order or refusal lists at least one fruit (recipes are never empty).
extension JournalRecord {
    /// Why a payload is not a record this version writes.
    package struct Defect: Error, Equatable, CustomStringConvertible {
        package let description: String
        package init(_ description: String) { self.description = description }
    }

    /// The largest lsn, seq or counter a record holds: `SINCE` takes seqs up to this, and a
    /// counter that far below 2^64 cannot overflow however long the store runs.
    package static let maxCounter = UInt64(Int64.max)

    package static func parse(_ payload: [UInt8]) -> Result<JournalRecord, Defect> {
        do {
            return .success(try parseFields(payload))
        } catch {
            return .failure(error)
        }
    }

    /// The record, or nil if `parse` refuses it.
    package init?(payload: [UInt8]) {
        guard case .success(let record) = Self.parse(payload) else { return nil }
        self = record
    }

    package init?(payload: Substring) {
        self.init(payload: Array(payload.utf8))
    }

    private static func parseFields(_ payload: [UInt8]) throws(Defect) -> JournalRecord {
        if payload.count >= 2 && payload[0] == UInt8(ascii: "3") && payload[1] == ASCII.space { return try parseV3(payload[2...]) }
        // A `K` record ends with a reply line, taken whole after its fourth space (version 1)
        // or its sixth (version 2: `K @<time> <key> <write> <name> <number> <reply>`).
        let isKey = payload.count >= 2 && payload[0] == UInt8(ascii: "K") && payload[1] == ASCII.space
        let stamped = payload.count >= 3 && payload[1] == ASCII.space && payload[2] == UInt8(ascii: "@")
        let splits = isKey ? (stamped ? 6 : 4) : Int.max
        var f = Fields(payload.split(separator: ASCII.space, maxSplits: splits, omittingEmptySubsequences: false))
        // Version 2: the time, then the same fields as version 1 (plus a key for A and S).
        let time: Int64?
        if stamped, f.tokens.count >= 2 {
            time = try f.time(1)
            f = Fields([f.tokens[0]] + f.tokens.dropFirst(2))
        } else {
            time = nil
        }
        let stock = 0...Limits.maxStock
        switch f.tag {
        case "O":
            try f.count(atLeast: 7)
            return .order(lsn: try f.number(1, "lsn", 1...maxCounter), seq: try f.number(2, "seq", 1...maxCounter),
                          juice: try f.name(3), count: try f.int(4, "count", 1...Limits.maxOrderCount),
                          key: try f.orderKey(5), left: try f.values(from: 6), time: time)
        case "R", "r":
            guard f.tag == "R" || time != nil else { throw Defect("an uncounted refusal without a time") }
            try f.count(atLeast: 6)
            return .refusal(lsn: try f.number(1, "lsn", 1...maxCounter), juice: try f.name(2),
                            count: try f.int(3, "count", 1...Limits.maxOrderCount), key: try f.orderKey(4), had: try f.values(from: 5),
                            time: time, counted: f.tag == "R")
        case "A":
            try f.count(exactly: time == nil ? 6 : 7)
            let amount = try f.int(4, "amount", 1...Limits.maxStock)
            return .restock(lsn: try f.number(1, "lsn", 1...maxCounter), seq: try f.number(2, "seq", 1...maxCounter),
                            fruit: try f.name(3), amount: amount, total: try f.int(5, "total", amount...Limits.maxStock),
                            key: time == nil ? nil : try f.orderKey(6), time: time)
        case "S":
            try f.count(exactly: time == nil ? 5 : 6)
            return .set(lsn: try f.number(1, "lsn", 1...maxCounter), seq: try f.number(2, "seq", 1...maxCounter),
                        fruit: try f.name(3), value: try f.int(4, "value", stock),
                        key: time == nil ? nil : try f.orderKey(5), time: time)
        case "H", "F", "D", "L", "T", "E", "Y":
            guard time == nil else { throw Defect("a time on a snapshot record") }
            return try parseSnapshotFields(f)
        case "K":
            if let time {
                try f.count(exactly: 6)
                guard let write = KeyedWrite(rawValue: String(decoding: f.tokens[2], as: UTF8.self)) else {
                    throw Defect("'\(Fields.shown(f.tokens[2]))' is not ORDER, RESTOCK or SET")
                }
                let number = switch write {
                case .order: try f.int(4, "count", 1...Limits.maxOrderCount)
                case .restock: try f.int(4, "amount", 1...Limits.maxStock)
                case .set: try f.int(4, "value", stock)
                }
                return .rememberedKey(key: try f.key(1), write: write, name: try f.name(3), number: number,
                                      reply: try f.reply(5, answering: write), time: time)
            }
            try f.count(exactly: 5)
            return .key(key: try f.key(1), juice: try f.name(2), count: try f.int(3, "count", 1...Limits.maxOrderCount),
                        reply: try f.reply(4, answering: .order))
        default:
            throw Defect("unknown record kind '\(Fields.shown(f.tokens[0]))'")
        }
    }

    /// The records only a snapshot holds (they carry no time).
    private static func parseSnapshotFields(_ f: Fields) throws(Defect) -> JournalRecord {
        let counter = 0...maxCounter, stock = 0...Limits.maxStock
        switch f.tag {
        case "H":
            try f.count(exactly: 5)
            return .header(lsn: try f.number(1, "lsn", counter), seq: try f.number(2, "seq", counter),
                           served: try f.number(3, "orders served", counter), refused: try f.number(4, "orders refused", counter))
        case "F":
            try f.count(exactly: 3)
            return .fruit(name: try f.name(1), stock: try f.int(2, "stock", stock))
        case "D", "L", "T":
            // A snapshot's sales tallies (sold, lost, short) all read as a name and a counter.
            try f.count(exactly: 3)
            let name = try f.name(1)
            switch f.tag {
            case "D": return .sold(juice: name, count: try f.number(2, "sold", counter))
            case "L": return .lost(juice: name, count: try f.number(2, "lost", counter))
            default: return .short(fruit: name, count: try f.number(2, "short", counter))
            }
        case "Y":
            try f.count(atLeast: 6)
            let start = try f.number(1, "hour start", 0...UInt64(JournalRecord.times.upperBound))
            guard let day = BusinessCalendar.day(ofDate: String(decoding: f.tokens[2], as: UTF8.self)) else {
                throw Defect("'\(Fields.shown(f.tokens[2]))' is not a date YYYY-MM-DD")
            }
            return .hour(start: Int64(start), day: day, offset: try f.offset(3), served: try f.number(4, "served", counter),
                         refused: try f.number(5, "refused", counter), counts: try f.hourCounts(from: 6))
        default:
            try f.count(exactly: 2)
            return .end(records: try f.int(1, "record count", 0...Int.max))
        }
    }
}

/// A payload's fields, each checked on its bytes.
package struct Fields {
    package typealias Defect = JournalRecord.Defect
    package let tokens: [ArraySlice<UInt8>]

    package init(_ tokens: [ArraySlice<UInt8>]) {
        self.tokens = tokens
    }

    package var tag: String { tokens[0].count == 1 ? String(decoding: tokens[0], as: UTF8.self) : "" }

    /// `@<unix seconds>`: a canonical decimal within `JournalRecord.times`.
    package func time(_ i: Int) throws(Defect) -> Int64 {
        let t = tokens[i]
        let range = JournalRecord.times
        guard t.first == UInt8(ascii: "@"), let value = Fields.decimal(t.dropFirst()), value <= UInt64(range.upperBound) else {
            throw Defect("time '\(Fields.shown(t))' is not @<unix seconds from \(range.lowerBound) to \(range.upperBound)>")
        }
        return Int64(value)
    }

    /// `+HHMM` or `-HHMM` within `JournalRecord.offsets`.
    package func offset(_ i: Int) throws(Defect) -> Int32 {
        let t = Array(tokens[i])
        let digits = t.dropFirst()
        guard t.count == 5, t[0] == UInt8(ascii: "+") || t[0] == UInt8(ascii: "-"), digits.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else {
            throw Defect("'\(Fields.shown(tokens[i]))' is not a UTC offset +HHMM")
        }
        let n = digits.map { Int32($0 - 0x30) }
        let hours = n[0] * 10 + n[1], minutes = n[2] * 10 + n[3]
        let seconds = (hours * 3600 + minutes * 60) * (t[0] == UInt8(ascii: "-") ? -1 : 1)
        guard minutes < 60, JournalRecord.offsets.contains(seconds), !(seconds == 0 && t[0] == UInt8(ascii: "-")) else {
            throw Defect("'\(Fields.shown(tokens[i]))' is not a UTC offset +HHMM")
        }
        return seconds
    }

    /// `<k>:<name>=<n>` from field `i` to the end: a known letter, a name, a counter of at least 1;
    /// the kinds in the writer's order (`Kind.allCases`), each name once per kind (a repeat was
    /// taken silently, the last one winning).
    package func hourCounts(from i: Int) throws(Defect) -> [JournalRecord.HourCount] {
        var list: [JournalRecord.HourCount] = []
        var seen = Set<String>()
        for t in tokens[i...] {
            guard t.count >= 4, t[t.startIndex + 1] == UInt8(ascii: ":"),
                  let kind = SalesHistory.Counters.Kind(letter: Character(Unicode.Scalar(t[t.startIndex]))) else {
                throw Defect("'\(Fields.shown(t))' is not <kind>:<name>=<count>")
            }
            let parts = t.dropFirst(2).split(separator: UInt8(ascii: "="), omittingEmptySubsequences: false)
            guard parts.count == 2, let value = Fields.decimal(parts[1]), value >= 1, value <= JournalRecord.maxCounter else {
                throw Defect("'\(Fields.shown(t))' is not <kind>:<name>=<count from 1>")
            }
            let count = JournalRecord.HourCount(kind, try Fields.name(parts[0]), value)
            guard (list.last?.kind.rawValue ?? 0) <= kind.rawValue, seen.insert(String(kind.letter) + count.name).inserted else {
                throw Defect("'\(Fields.shown(t))' repeats a counter or is out of the order s, l, t, u, a, e, o")
            }
            list.append(count)
        }
        return list
    }

    package func count(exactly n: Int) throws(Defect) {
        guard tokens.count == n else { throw Defect("\(tokens.count) fields, not \(n)") }
    }

    package func count(atLeast n: Int) throws(Defect) {
        guard tokens.count >= n else { throw Defect("\(tokens.count) fields, not at least \(n)") }
    }

    /// A canonical decimal: digits only, no leading zero, within `range`.
    package func number(_ i: Int, _ what: String, _ range: ClosedRange<UInt64>) throws(Defect) -> UInt64 {
        guard let value = Fields.decimal(tokens[i]), range.contains(value) else {
            throw Defect("\(what) '\(Fields.shown(tokens[i]))' is not a number from \(range.lowerBound) to \(range.upperBound)")
        }
        return value
    }

    package func int(_ i: Int, _ what: String, _ range: ClosedRange<Int>) throws(Defect) -> Int {
        Int(try number(i, what, UInt64(range.lowerBound)...UInt64(range.upperBound)))
    }

    package static func decimal(_ t: ArraySlice<UInt8>) -> UInt64? {
        guard !t.isEmpty, t.count == 1 || t.first != UInt8(ascii: "0") else { return nil }
        var value: UInt64 = 0
        for b in t {
            guard b >= 0x30 && b <= 0x39 else { return nil }
            let (times10, o1) = value.multipliedReportingOverflow(by: 10)
            let (next, o2) = times10.addingReportingOverflow(UInt64(b - 0x30))
            guard !o1 && !o2 else { return nil }
            value = next
        }
        return value
    }

    package func name(_ i: Int) throws(Defect) -> String {
        try Fields.name(tokens[i])
    }

    package static func name(_ t: ArraySlice<UInt8>) throws(Defect) -> String {
        guard let name = String(validating: t, as: UTF8.self), NameRule.wellFormedProblem(name) == nil else {
            throw Defect("'\(shown(t))' is not a name")
        }
        return name
    }

    /// `-` or `key=<key>`.
    package func orderKey(_ i: Int) throws(Defect) -> String? {
        let t = tokens[i]
        if t.elementsEqual([UInt8(ascii: "-")]) { return nil }
        guard t.starts(with: Array("key=".utf8)) else { throw Defect("'\(Fields.shown(t))' is neither - nor key=<key>") }
        return try Fields.key(t.dropFirst(4))
    }

    package func key(_ i: Int) throws(Defect) -> String {
        try Fields.key(tokens[i])
    }

    package static func key(_ t: ArraySlice<UInt8>) throws(Defect) -> String {
        let valid = t.withUnsafeBytes { CommandParser.isValidKey($0) }
        guard valid else { throw Defect("'\(shown(t))' is not an order key") }
        return String(decoding: t, as: UTF8.self)
    }

    /// `<name>=<stock>` from field `i` to the end, at least one.
    package func values(from i: Int) throws(Defect) -> [JournalRecord.NamedValue] {
        var list: [JournalRecord.NamedValue] = []
        for t in tokens[i...] {
            let parts = t.split(separator: UInt8(ascii: "="), omittingEmptySubsequences: false)
            guard parts.count == 2, let value = Fields.decimal(parts[1]), value <= UInt64(Limits.maxStock) else {
                throw Defect("'\(Fields.shown(t))' is not <fruit>=<stock 0 to \(Limits.maxStock)>")
            }
            list.append(JournalRecord.NamedValue(try Fields.name(parts[0]), Int(value)))
        }
        return list
    }

    /// The reply a keyed write got, as the store wrote it: `OK ORDER ...` or
    /// `ERR OUT_OF_STOCK ...` for an order, `OK RESTOCK ...` or `OK SET ...`; text without
    /// control characters (it is sent again, as a line, to a retrying till).
    package func reply(_ i: Int, answering write: JournalRecord.KeyedWrite) throws(Defect) -> String {
        let t = tokens[i]
        let text = t.withUnsafeBytes { LineCheck.problem(in: $0) == nil && !$0.contains(ASCII.tab) }
        let starts: [String] = switch write {
        case .order: ["OK ORDER ", "ERR OUT_OF_STOCK "]
        case .restock: ["OK RESTOCK "]
        case .set: ["OK SET "]
        }
        guard text, let reply = String(validating: t, as: UTF8.self), starts.contains(where: { reply.hasPrefix($0) }) else {
            throw Defect("'\(Fields.shown(t))' is not \(write == .order ? "an" : "a") \(write.rawValue) reply")
        }
        return reply
    }

    /// A field quoted in a message: printable ASCII as is, anything else as \xNN, at most 40 bytes.
    package static func shown(_ t: ArraySlice<UInt8>) -> String {
        var out = ""
        for b in t.prefix(40) {
            if b >= 0x21 && b <= 0x7E && b != UInt8(ascii: "'") && b != UInt8(ascii: "\\") {
                out.unicodeScalars.append(Unicode.Scalar(b))
            } else {
                out += "\\x" + (b < 16 ? "0" : "") + String(b, radix: 16, uppercase: true)
            }
        }
        return t.count > 40 ? out + "..." : out
    }
}

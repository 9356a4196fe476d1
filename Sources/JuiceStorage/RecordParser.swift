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
                let (write, number) = try f.keyedWrite(2, number: 4)
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

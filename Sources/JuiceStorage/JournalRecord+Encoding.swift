import JuiceCore
import JuiceDomain
import JuicePlatform
import JuiceLog

/// A record's bytes on disk: its payload text and its frame (PROTOCOL.md, "Storage").
extension JournalRecord {
    package var payload: String {
        if let v3 = payloadV3 { return v3 }
        switch self {
        case let .order(lsn, seq, juice, count, key, left, time, _, _):
            return "O\(Self.stamp(time)) \(lsn) \(seq) \(juice) \(count) \(Self.keyField(key))" + Self.values(left)
        case let .refusal(lsn, juice, count, key, had, time, counted, _, _):
            return "\(counted ? "R" : "r")\(Self.stamp(time)) \(lsn) \(juice) \(count) \(Self.keyField(key))" + Self.values(had)
        case let .restock(lsn, seq, fruit, amount, total, key, time, _):
            return "A\(Self.stamp(time)) \(lsn) \(seq) \(fruit) \(amount) \(total)" + (time == nil ? "" : " " + Self.keyField(key))
        case let .set(lsn, seq, fruit, value, key, time, _):
            return "S\(Self.stamp(time)) \(lsn) \(seq) \(fruit) \(value)" + (time == nil ? "" : " " + Self.keyField(key))
        case let .header(lsn, seq, served, refused):
            return "H \(lsn) \(seq) \(served) \(refused)"
        case let .fruit(name, stock):
            return "F \(name) \(stock)"
        case let .sold(juice, count):
            return "D \(juice) \(count)"
        case let .lost(juice, count):
            return "L \(juice) \(count)"
        case let .short(fruit, count):
            return "T \(fruit) \(count)"
        case let .key(key, juice, count, reply):
            return "K \(key) \(juice) \(count) \(reply)"
        case let .rememberedKey(key, write, name, number, reply, time):
            return "K\(Self.stamp(time)) \(key) \(write.rawValue) \(name) \(number) \(reply)"
        case .hour:
            var out: [UInt8] = []
            appendPayload(to: &out)
            return String(decoding: out, as: UTF8.self)
        case let .end(records):
            return "E \(records)"
        case .tillPaired, .tillRenamed, .tillRevoked, .scopedKey, .tillDay, .void, .sale, .money:
            preconditionFailure("a version-3 record has a version-3 payload")
        }
    }

    /// ` @<time>` for a version-2 record, nothing for a version-1 one.
    private static func stamp(_ time: Int64?) -> String {
        time.map { " @\(min(max($0, times.lowerBound), times.upperBound))" } ?? ""
    }

    package static func keyField(_ key: String?) -> String {
        key.map { "key=" + $0 } ?? "-"
    }

    package static func values(_ list: [NamedValue]) -> String {
        list.map { " \($0.name)=\($0.value)" }.joined()
    }

    /// The framed record, ready to append to a file: `<length> <crc32 hex> <payload>\n`.
    package func framed() -> [UInt8] {
        var body: [UInt8] = []
        body.reserveCapacity(96)
        var out: [UInt8] = []
        appendFramed(to: &out, scratch: &body)
        return out
    }

    /// `framed()` appended to `out`, the payload built in `scratch` (emptied first, its
    /// capacity kept): a snapshot frames thousands of records in one turn of the loop.
    package func appendFramed(to out: inout [UInt8], scratch body: inout [UInt8]) {
        body.removeAll(keepingCapacity: true)
        appendPayload(to: &body)
        out.append(decimal: body.count)
        out.append(ascii: " ")
        let crc = CRC32.checksum(body)
        for shift in stride(from: 28, through: 0, by: -4) { out.append(Self.hexDigits[Int((crc >> UInt32(shift)) & 0xF)]) }
        out.append(ascii: " ")
        out.append(contentsOf: body)
        out.append(ASCII.lf)
    }

    private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)

    /// The payload's bytes. An order and a refusal (one per order on the hot path) are written
    /// as bytes, the rest through `payload`: the same text either way (JournalRecordTests).
    package func appendPayload(to out: inout [UInt8]) {
        switch self {
        case let .order(lsn, seq, juice, count, key, left, time, by, amount):
            if by != nil { out.append(ascii: "3 ") }
            out.append(UInt8(ascii: "O"))
            Self.appendStamp(time, to: &out)
            Self.appendFields(lsn, seq, juice, count, key, by, amount, left, to: &out)
        case let .refusal(lsn, juice, count, key, had, time, counted, by, amount):
            if by != nil { out.append(ascii: "3 ") }
            out.append(UInt8(ascii: counted ? "R" : "r"))
            Self.appendStamp(time, to: &out)
            Self.appendFields(lsn, nil, juice, count, key, by, amount, had, to: &out)
        case let .hour(start, day, offset, served, refused, counts):
            // `Y <start> <YYYY-MM-DD> <+HHMM> <served> <refused> <letter>:<name>=<value> ...`: a
            // snapshot holds one per hour of 400 days, all encoded in one turn of the loop (a
            // compaction, a backup), so bytes, not a String per field (it was most of that turn).
            out.append(ascii: "Y ")
            out.append(decimal: Int(start))
            out.append(ascii: " ")
            BusinessCalendar.appendDate(day, to: &out)
            out.append(ascii: " ")
            BusinessCalendar.appendOffset(offset, to: &out)
            out.append(ascii: " ")
            out.append(decimal: served)
            out.append(ascii: " ")
            out.append(decimal: refused)
            for count in counts {
                out.append(ascii: " ")
                out.append(count.kind.byte)
                out.append(ascii: ":")
                out.append(count.name)
                out.append(ascii: "=")
                out.append(decimal: count.value)
            }
        default:
            out.append(payload)
        }
    }

    private static func appendStamp(_ time: Int64?, to out: inout [UInt8]) {
        guard let time else { return }
        out.append(ascii: " @")
        out.append(decimal: Int(min(max(time, times.lowerBound), times.upperBound)))
    }

    /// ` <lsn> [<seq>] <juice> <count> <key> [<by> <amount>] name=value...` (the bracket: version 3)
    private static func appendFields(_ lsn: UInt64, _ seq: UInt64?, _ juice: String, _ count: Int, _ key: String?,
                                     _ by: Writer?, _ amount: Int?, _ values: [NamedValue], to out: inout [UInt8]) {
        out.append(ascii: " ")
        out.append(decimal: lsn)
        if let seq {
            out.append(ascii: " ")
            out.append(decimal: seq)
        }
        out.append(ascii: " ")
        out.append(juice)
        out.append(ascii: " ")
        out.append(decimal: count)
        out.append(ascii: " ")
        if let key {
            out.append(ascii: "key=")
            out.append(key)
        } else {
            out.append(UInt8(ascii: "-"))
        }
        if let by {
            out.append(ascii: " ")
            out.append(by.field)
            out.append(ascii: " ")
            if let amount { out.append(decimal: amount) } else { out.append(UInt8(ascii: "-")) }
        }
        for value in values {
            out.append(ascii: " ")
            out.append(value.name)
            out.append(ascii: "=")
            out.append(decimal: value.value)
        }
    }
}

private extension SalesHistory.Counters.Kind {
    /// `letter` as the byte an hour record carries (every letter is ASCII).
    var byte: UInt8 { letter.asciiValue ?? UInt8(ascii: "?") }
}

/// One fact in the journal or in a snapshot. Every record is a line of text (readable with
/// `cat`), framed as
///
///     <length> <crc32> <payload>\n
///
/// where `length` is the payload's size in bytes (decimal) and `crc32` its CRC-32 as 8 lowercase
/// hex digits. A reader can tell a record cut short by a crash (length or newline missing) or
/// damaged (checksum) from a good one. Names are stored, not menu indices, so a journal stays
/// readable when the menu changes. Every record has an `lsn`, its position in the journal's
/// history; changes also carry the store's `seq`.
public enum JournalRecord: Sendable, Equatable {
    /// `O <lsn> <seq> <juice> <count> <key=token|-> <fruit>=<left> ...`: an order that was applied.
    case order(lsn: UInt64, seq: UInt64, juice: String, count: Int, key: String?, left: [NamedValue])
    /// `R <lsn> <juice> <count> <key=token|-> <fruit>=<had> ...`: an order refused for stock.
    case refusal(lsn: UInt64, juice: String, count: Int, key: String?, had: [NamedValue])
    /// `A <lsn> <seq> <fruit> <amount> <total>`: a RESTOCK.
    case restock(lsn: UInt64, seq: UInt64, fruit: String, amount: Int, total: Int)
    /// `S <lsn> <seq> <fruit> <value>`: a SET.
    case set(lsn: UInt64, seq: UInt64, fruit: String, value: Int)
    // Snapshot records: the whole state at one lsn.
    /// `H <lsn> <seq> <orders_served> <orders_refused>`: first record of a snapshot.
    case header(lsn: UInt64, seq: UInt64, served: UInt64, refused: UInt64)
    /// `F <fruit> <stock>`
    case fruit(name: String, stock: Int)
    /// `D <juice> <sold>`
    case sold(juice: String, count: UInt64)
    /// `K <key> <juice> <count> <original reply line>`
    case key(key: String, juice: String, count: Int, reply: String)
    /// `E <records>`: the last record of a snapshot, with the number of records before it.
    case end(records: Int)

    public struct NamedValue: Sendable, Equatable {
        public let name: String
        public let value: Int
        public init(_ name: String, _ value: Int) {
            self.name = name
            self.value = value
        }
    }

    public var lsn: UInt64? {
        switch self {
        case .order(let lsn, _, _, _, _, _), .refusal(let lsn, _, _, _, _), .restock(let lsn, _, _, _, _),
             .set(let lsn, _, _, _), .header(let lsn, _, _, _):
            return lsn
        default:
            return nil
        }
    }

    public var payload: String {
        switch self {
        case let .order(lsn, seq, juice, count, key, left):
            return "O \(lsn) \(seq) \(juice) \(count) \(key.map { "key=" + $0 } ?? "-")" + Self.values(left)
        case let .refusal(lsn, juice, count, key, had):
            return "R \(lsn) \(juice) \(count) \(key.map { "key=" + $0 } ?? "-")" + Self.values(had)
        case let .restock(lsn, seq, fruit, amount, total):
            return "A \(lsn) \(seq) \(fruit) \(amount) \(total)"
        case let .set(lsn, seq, fruit, value):
            return "S \(lsn) \(seq) \(fruit) \(value)"
        case let .header(lsn, seq, served, refused):
            return "H \(lsn) \(seq) \(served) \(refused)"
        case let .fruit(name, stock):
            return "F \(name) \(stock)"
        case let .sold(juice, count):
            return "D \(juice) \(count)"
        case let .key(key, juice, count, reply):
            return "K \(key) \(juice) \(count) \(reply)"
        case let .end(records):
            return "E \(records)"
        }
    }

    private static func values(_ list: [NamedValue]) -> String {
        list.map { " \($0.name)=\($0.value)" }.joined()
    }

    /// The framed record, ready to append to a file.
    public func framed() -> [UInt8] {
        let body = Array(payload.utf8)
        var out: [UInt8] = []
        out.reserveCapacity(body.count + 20)
        out.append(decimal: body.count)
        out.append(ascii: " ")
        let crc = String(CRC32.checksum(body), radix: 16)
        out.append(String(repeating: "0", count: 8 - crc.count) + crc)
        out.append(ascii: " ")
        out.append(contentsOf: body)
        out.append(ASCII.lf)
        return out
    }

    /// Parses a payload (already checksum-verified); nil if it is not a record we know.
    public init?(payload: Substring) {
        let t = payload.split(separator: " ", omittingEmptySubsequences: false).map(String.init)
        guard let tag = t.first else { return nil }
        func u(_ i: Int) -> UInt64? { i < t.count ? UInt64(t[i]) : nil }
        func n(_ i: Int) -> Int? { i < t.count ? Int(t[i]) : nil }
        func key(_ i: Int) -> String? { t[i].hasPrefix("key=") ? String(t[i].dropFirst(4)) : nil }
        func named(from i: Int) -> [NamedValue]? {
            var list: [NamedValue] = []
            for item in t[i...] {
                guard let eq = item.lastIndex(of: "="), let v = Int(item[item.index(after: eq)...]) else { return nil }
                list.append(NamedValue(String(item[..<eq]), v))
            }
            return list
        }
        switch tag {
        case "O":
            guard t.count >= 6, let lsn = u(1), let seq = u(2), let count = n(4), let left = named(from: 6) else { return nil }
            self = .order(lsn: lsn, seq: seq, juice: t[3], count: count, key: key(5), left: left)
        case "R":
            guard t.count >= 5, let lsn = u(1), let count = n(3), let had = named(from: 5) else { return nil }
            self = .refusal(lsn: lsn, juice: t[2], count: count, key: key(4), had: had)
        case "A":
            guard t.count == 6, let lsn = u(1), let seq = u(2), let amount = n(4), let total = n(5) else { return nil }
            self = .restock(lsn: lsn, seq: seq, fruit: t[3], amount: amount, total: total)
        case "S":
            guard t.count == 5, let lsn = u(1), let seq = u(2), let value = n(4) else { return nil }
            self = .set(lsn: lsn, seq: seq, fruit: t[3], value: value)
        case "H":
            guard t.count == 5, let lsn = u(1), let seq = u(2), let served = u(3), let refused = u(4) else { return nil }
            self = .header(lsn: lsn, seq: seq, served: served, refused: refused)
        case "F":
            guard t.count == 3, let stock = n(2) else { return nil }
            self = .fruit(name: t[1], stock: stock)
        case "D":
            guard t.count == 3, let count = u(2) else { return nil }
            self = .sold(juice: t[1], count: count)
        case "K":
            guard t.count >= 5, let count = n(3) else { return nil }
            self = .key(key: t[1], juice: t[2], count: count, reply: t[4...].joined(separator: " "))
        case "E":
            guard t.count == 2, let records = n(1) else { return nil }
            self = .end(records: records)
        default:
            return nil
        }
    }
}

/// Reads framed records from a whole file's bytes and says where, if anywhere, it stops being
/// trustworthy.
public enum RecordReader {
    public enum Problem: Sendable, Equatable {
        /// The file ends in a partial or damaged record with nothing valid after it: a write a
        /// crash cut short. Safe to cut off at `offset`.
        case tornTail(offset: Int, reason: String)
        /// A bad record with valid records after it: real corruption, never silently dropped.
        case corrupt(offset: Int, reason: String)
    }

    public struct Result: Sendable {
        public var records: [(offset: Int, record: JournalRecord)] = []
        public var problem: Problem?
        /// Bytes up to the end of the last good record.
        public var validLength = 0
    }

    public static func read(_ bytes: [UInt8]) -> Result {
        var result = Result()
        var offset = 0
        while offset < bytes.count {
            // The journal is preallocated: zeros from here to the end are unused space.
            if bytes[offset] == 0, bytes[offset...].allSatisfy({ $0 == 0 }) { return result }
            switch frame(bytes, at: offset) {
            case .record(let record, let next):
                result.records.append((offset, record))
                offset = next
                result.validLength = next
            case .bad(let reason):
                // Damage followed by good records is corruption; damage at the end is a torn write.
                if anyValidRecord(bytes, after: offset) {
                    result.problem = .corrupt(offset: offset, reason: reason)
                } else {
                    result.problem = .tornTail(offset: offset, reason: reason)
                }
                return result
            }
        }
        return result
    }

    private enum Frame {
        case record(JournalRecord, next: Int)
        case bad(String)
    }

    private static func frame(_ b: [UInt8], at start: Int) -> Frame {
        // <length> SP <crc:8 hex> SP <payload> LF
        var i = start
        var length = 0
        while i < b.count, b[i] >= 0x30, b[i] <= 0x39, i - start < 8 {
            length = length * 10 + Int(b[i] - 0x30)
            i += 1
        }
        guard i > start, i < b.count, b[i] == 0x20 else { return .bad(i >= b.count ? "record cut short" : "bad length field") }
        i += 1
        guard i + 9 <= b.count else { return .bad("record cut short") }
        guard let crc = UInt32(String(decoding: b[i..<i + 8], as: UTF8.self), radix: 16), b[i + 8] == 0x20 else {
            return .bad("bad checksum field")
        }
        i += 9
        guard i + length + 1 <= b.count else { return .bad("record cut short") }
        let body = Array(b[i..<i + length])
        guard b[i + length] == 0x0A else { return .bad("record does not end where its length says") }
        guard CRC32.checksum(body) == crc else { return .bad("checksum mismatch") }
        guard let record = JournalRecord(payload: Substring(String(decoding: body, as: UTF8.self))) else {
            return .bad("unknown record")
        }
        return .record(record, next: i + length + 1)
    }

    /// Whether any complete, checksum-valid record starts on a line after `offset` (a record may
    /// also follow the zero padding a torn write left in preallocated space).
    private static func anyValidRecord(_ b: [UInt8], after offset: Int) -> Bool {
        var i = offset
        while i < b.count {
            guard let nl = b[i...].firstIndex(of: 0x0A) else { return false }
            i = nl + 1
            if i < b.count, case .record = frame(b, at: i) { return true }
        }
        return false
    }
}

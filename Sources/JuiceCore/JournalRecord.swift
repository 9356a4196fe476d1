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
    /// `L <juice> <lost>`: juices refused for stock (a snapshot without it means 0).
    case lost(juice: String, count: UInt64)
    /// `T <fruit> <short>`: refused orders that fruit was short in (a snapshot without it means 0).
    case short(fruit: String, count: UInt64)
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

    /// The store's seq after the change, for the records of applied changes.
    public var seq: UInt64? {
        switch self {
        case .order(_, let seq, _, _, _, _), .restock(_, let seq, _, _, _), .set(_, let seq, _, _):
            return seq
        default:
            return nil
        }
    }

    public var isRefusal: Bool {
        if case .refusal = self { return true }
        return false
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
        case let .lost(juice, count):
            return "L \(juice) \(count)"
        case let .short(fruit, count):
            return "T \(fruit) \(count)"
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
}

import JuiceCore
import JuicePlatform
import JuiceLog

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
///
/// Three versions are read; the third is written (see `JournalRecord+V3.swift`). Version 2 gives every change and refusal its
/// wall-clock time as `@<unix seconds>` right after the tag (the shop's reports, and the age of
/// an idempotency key, come from it), RESTOCK and SET a key field, and remembered keys their time
/// and the write they answered. A version-1 record (no `@`) has no time: it is "before history".
package enum JournalRecord: Sendable, Equatable {
    /// `O [@<time>] <lsn> <seq> <juice> <count> <key=token|-> <fruit>=<left> ...`: an order that was applied.
    /// Version 3 adds who made it (`by`) and its amount (nil: the menu has no prices).
    case order(lsn: UInt64, seq: UInt64, juice: String, count: Int, key: String?, left: [NamedValue], time: Int64? = nil,
               by: Writer? = nil, amount: Int? = nil)
    /// `R [@<time>] <lsn> <juice> <count> <key=token|-> <fruit>=<had> ...`: an order refused for
    /// stock. `r @<time> ...` (version 2 only), the same with `counted` false: a refusal past its
    /// address's lost-sales allowance, kept for its key but left out of the sales figures.
    case refusal(lsn: UInt64, juice: String, count: Int, key: String?, had: [NamedValue], time: Int64? = nil, counted: Bool = true,
                 by: Writer? = nil, amount: Int? = nil)
    /// `A <lsn> <seq> <fruit> <amount> <total>`, version 2 `A @<time> ... <total> <key=token|->`: a RESTOCK.
    case restock(lsn: UInt64, seq: UInt64, fruit: String, amount: Int, total: Int, key: String? = nil, time: Int64? = nil,
                 by: Writer? = nil)
    /// `S <lsn> <seq> <fruit> <value>`, version 2 `S @<time> ... <value> <key=token|->`: a SET.
    case set(lsn: UInt64, seq: UInt64, fruit: String, value: Int, key: String? = nil, time: Int64? = nil, by: Writer? = nil)
    /// Version 3: `3 P @<time> <lsn> <till> <credential hash> <name>`: a till was paired.
    case tillPaired(lsn: UInt64, till: TillID, hash: String, name: String, time: Int64)
    /// Version 3: `3 N @<time> <lsn> <till> <name>`: a till was renamed.
    case tillRenamed(lsn: UInt64, till: TillID, name: String, time: Int64)
    /// Version 3: `3 X @<time> <lsn> <till>`: a till was revoked.
    case tillRevoked(lsn: UInt64, till: TillID, time: Int64)
    /// Version 3, snapshot: `3 K @<time> <by> <key> <outcome>`: a remembered key, its scope
    /// and its first outcome as typed fields (no reply text).
    case scopedKey(key: String, by: Writer, outcome: KeyOutcome, time: Int64)
    /// Version 3, snapshot: `3 Q <YYYY-MM-DD> <till> <orders> <juices> [<amount> <voids> <voided amount>]`:
    /// a till's sales on one business day (the money fields written since prices came).
    case tillDay(day: Int32, till: TillID, sales: TillRegistry.Sales)
    /// Version 3: `3 V @<time> <lsn> <seq> <sale> <juice> <count> <reason> <key=K or -> <by> <amount or -> <fruit>=<value> ...`:
    /// a sale voided, its fruit given back.
    case void(lsn: UInt64, seq: UInt64, sale: UInt64, juice: String, count: Int, reason: VoidReason, key: String?, by: Writer,
              amount: Int?, returned: [NamedValue], time: Int64)
    /// Version 3, snapshot: `3 M <takings> <lost revenue> <voids> <voided amount>`: the money since
    /// the store was created (written only once there is any).
    case money(MoneyTotals)
    /// Version 3, snapshot: `3 G <YYYY-MM-DD> <seq> @<time> <juice> <count> <by> <amount or -> <key=K or -> <voided seq or ->`:
    /// one of the business day's sales, which a VOID may still name.
    case sale(day: Int32, seq: UInt64, juice: String, count: Int, by: Writer, amount: Int?, key: String?, voidedBy: UInt64?, time: Int64)
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
    /// Version 1: `K <key> <juice> <count> <original reply line>` (an order's key, no time).
    case key(key: String, juice: String, count: Int, reply: String)
    /// Version 2: `K @<time> <key> <ORDER|RESTOCK|SET> <juice or fruit> <count or amount> <original reply line>`.
    case rememberedKey(key: String, write: KeyedWrite, name: String, number: Int, reply: String, time: Int64)
    /// `Y <start> <YYYY-MM-DD> <±HHMM> <served> <refused> <k>:<name>=<n> ...`: snapshot, one hour
    /// of the shop's history (`SalesHistory`): the slot's start (unix seconds), the business day
    /// and UTC offset it was given, and its non-zero counters (`s:mango=3`; letters per
    /// `SalesHistory.Counters.Kind`).
    case hour(start: Int64, day: Int32, offset: Int32, served: UInt64, refused: UInt64, counts: [HourCount])
    /// `E <records>`: the last record of a snapshot, with the number of records before it.
    case end(records: Int)

    package struct HourCount: Sendable, Equatable {
        package let kind: SalesHistory.Counters.Kind
        package let name: String
        package let value: UInt64
        package init(_ kind: SalesHistory.Counters.Kind, _ name: String, _ value: UInt64) {
            self.kind = kind
            self.name = name
            self.value = value
        }
    }

    /// The UTC offsets an hour may have: ±18:00, as ISO 8601 allows.
    package static let offsets: ClosedRange<Int32> = -64_800...64_800

    /// A remembered key's first outcome, as the snapshot keeps it: typed fields, no reply text.
    package enum KeyOutcome: Sendable, Equatable {
        /// An applied write: its seq, what it was, and the stock it left.
        /// An order's also its amount and the void that undid it, if any (a `sale` outcome).
        case applied(seq: UInt64, write: KeyedWrite, name: String, number: Int, touched: [NamedValue], amount: Int? = nil,
                     voidedBy: UInt64? = nil)
        /// A VOID applied: its seq, the sale, why, the sale's juice and count, the money given
        /// back, and the stock it left.
        case voided(seq: UInt64, sale: UInt64, reason: VoidReason, juice: String, count: Int, amount: Int?, touched: [NamedValue])
        /// An order refused for stock, and what each recipe fruit had then.
        case short(juice: String, count: Int, had: [NamedValue])
    }

    /// The write a remembered key answered.
    package enum KeyedWrite: String, Sendable, Equatable {
        case order = "ORDER", restock = "RESTOCK", set = "SET"
    }

    /// The times a record may carry: unix seconds from 1970 to the end of year 9999, as a
    /// canonical decimal. The writer clamps into it, so it never writes what the reader refuses.
    package static let times: ClosedRange<Int64> = 0...253_402_300_799

    package struct NamedValue: Sendable, Equatable {
        package let name: String
        package let value: Int
        package init(_ name: String, _ value: Int) {
            self.name = name
            self.value = value
        }
    }

    package var lsn: UInt64? {
        switch self {
        case .order(let lsn, _, _, _, _, _, _, _, _), .refusal(let lsn, _, _, _, _, _, _, _, _), .restock(let lsn, _, _, _, _, _, _, _),
             .set(let lsn, _, _, _, _, _, _), .header(let lsn, _, _, _), .tillPaired(let lsn, _, _, _, _),
             .tillRenamed(let lsn, _, _, _), .tillRevoked(let lsn, _, _), .void(let lsn, _, _, _, _, _, _, _, _, _, _):
            return lsn
        default:
            return nil
        }
    }

    /// The store's seq after the change, for the records of applied changes.
    package var seq: UInt64? {
        switch self {
        case .order(_, let seq, _, _, _, _, _, _, _), .restock(_, let seq, _, _, _, _, _, _), .set(_, let seq, _, _, _, _, _),
             .void(_, let seq, _, _, _, _, _, _, _, _, _):
            return seq
        default:
            return nil
        }
    }

    package var isRefusal: Bool {
        if case .refusal = self { return true }
        return false
    }

    /// When a change or refusal happened (unix seconds); nil for a version-1 record.
    package var time: Int64? {
        switch self {
        case .order(_, _, _, _, _, _, let time, _, _), .refusal(_, _, _, _, _, let time, _, _, _),
             .restock(_, _, _, _, _, _, let time, _), .set(_, _, _, _, _, let time, _):
            return time
        case .rememberedKey(_, _, _, _, _, let time), .tillPaired(_, _, _, _, let time), .tillRenamed(_, _, _, let time),
             .tillRevoked(_, _, let time), .scopedKey(_, _, _, let time), .void(_, _, _, _, _, _, _, _, _, _, let time):
            return time
        default:
            return nil
        }
    }
}

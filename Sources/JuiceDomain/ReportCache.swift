import JuiceCore
import JuicePlatform
import JuiceLog
import Synchronization

/// The shop's reports, computed once per change and shared. A report reads the whole history
/// (430 days of a busy shop: ~6 ms for a 400-day days.csv in a release build, against 0.07 ms
/// for `/state`), and 200 clients asking for the same one used to pay it 200 times, on the
/// loop, while everyone else waited. What a report shows depends only on the history
/// (`SalesHistory.version`: every counted change moves it, refusals included) and on which
/// business day is today (`isToday`, and the default day of each route), so an answer is kept
/// under its route, its parameters and today, and all of them are dropped when the history
/// moves on. A new business day needs no clearing: today is in the key.
///
/// Bounded: at most `maxEntries` answers and `maxBytes` of them, the least recently used going
/// first. An answer larger than `maxBytes` is computed for its caller and not kept.
package struct ReportCache {
    package static let maxEntries = 16
    package static let maxBytes = 8 << 20

    /// Which report, with its parameters resolved (a missing date is already today's).
    package enum Kind: Hashable {
        /// `REPORT` on the line side: the report's values (each protocol words them).
        case day(Int32)
        /// `/reports/day`: the report as JSON.
        case dayJSON(Int32)
        /// `/reports/hours.csv`.
        case hoursCSV(Int32)
        /// `/reports/days.csv`, first and last day.
        case daysCSV(Int32, Int32)
        /// `/reports/tills.csv`, first and last day.
        case tillsCSV(Int32, Int32)
    }

    package struct Key: Hashable {
        package let kind: Kind
        package let today: Int32
    }

    package enum Value {
        case report(DayReport)
        case bytes([UInt8])

        /// Its size, for the bound: a day report's values are a few KB at most.
        package var size: Int {
            switch self {
            case .report(let report): 1024 + 64 * (report.hours.count + report.trend.count)
            case .bytes(let bytes): bytes.count
            }
        }
    }

    /// The history version the entries were computed at.
    private var version: UInt64 = 0
    /// Most recently used last; a linear search over at most 16 beats hashing here.
    private var entries: [(key: Key, value: Value, size: Int)] = []
    private var bytes = 0

    /// The answer for `key` at history `version`: kept, or computed now (and kept if it fits).
    /// `computed` is told of each computation.
    package mutating func value(_ key: Key, version: UInt64, computed: () -> Void, compute: () -> Value) -> Value {
        if version != self.version {
            entries.removeAll()
            bytes = 0
            self.version = version
        }
        if let index = entries.lastIndex(where: { $0.key == key }) {
            // The most recent one first: many clients asking for the same one find it at once.
            if index != entries.count - 1 { entries.append(entries.remove(at: index)) }
            return entries[entries.count - 1].value
        }
        computed()
        let value = compute()
        let size = value.size
        guard size <= Self.maxBytes else { return value }
        while !entries.isEmpty && (entries.count >= Self.maxEntries || bytes + size > Self.maxBytes) {
            bytes -= entries.removeFirst().size
        }
        entries.append((key, value, size))
        bytes += size
        return value
    }
}

import JuiceCore
import Synchronization
import JuiceDomain
import JuiceStorage

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
struct ReportCache {
    static let maxEntries = 16
    static let maxBytes = 8 << 20

    /// Which report, with its parameters resolved (a missing date is already today's).
    enum Kind: Hashable {
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

    struct Key: Hashable {
        let kind: Kind
        let today: Int32
    }

    enum Value {
        case report(DayReport)
        case bytes([UInt8])

        /// Its size, for the bound: a day report's values are a few KB at most.
        var size: Int {
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
    mutating func value(_ key: Key, version: UInt64, computed: () -> Void, compute: () -> Value) -> Value {
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

/// Counts the expensive work the store does (a report computed, not read from the cache), for
/// the loop's fair turn: a turn that caused one is over (`FairTurn`), so a client pipelining
/// reports gets one computed per turn. An atomic so that a turn can read it per line for the
/// cost of a load, without entering the store; it is only written on the loop.
final class WorkMeter: Sendable {
    private let count = Atomic<UInt64>(0)

    /// Expensive computations so far.
    var expensive: UInt64 { count.load(ordering: .relaxed) }

    func countExpensive() { count.add(1, ordering: .relaxed) }
}

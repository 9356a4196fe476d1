import Foundation
import JuiceCore
import JuiceDomain
import JuiceStorage

/// `juice-bench history`: writes a data directory whose snapshot holds `days` days of the
/// shop's history (the standard menu), so the report scenarios (bench.sh S8r, S8c, S8d) can
/// read 430 days without selling for 430 days first. It writes what the server's own snapshot
/// holds (`H`, `F`, `D`, `Y` per hour, `E`; JournalRecord frames each), so the server reads it
/// as it reads one of its own.
struct HistoryOptions: SubcommandOptions {
    var common = CommonOptions()
    var directory = ""
    var days = 430
    /// The last day written (default: today, UTC).
    var lastDay: Int32?
    /// Hours with sales per day, from 08:00 UTC.
    var hoursPerDay = 10
}

func parseHistory(_ reader: inout ArgumentReader) throws(BenchError) -> HistoryOptions {
    let options: HistoryOptions = try reader.parseFlags { flag, options, reader throws(BenchError) in
        switch flag {
        case "--data": options.directory = try reader.string(for: flag)
        case "--days": options.days = try reader.int(for: flag, min: 1, max: 10_000)
        case "--hours": options.hoursPerDay = try reader.int(for: flag, min: 1, max: 24)
        case "--last":
            let text = try reader.string(for: flag)
            guard let day = BusinessCalendar.day(ofDate: text) else { throw reader.usage("--last needs a date YYYY-MM-DD, not '\(text)'") }
            options.lastDay = day
        default: return false
        }
        return true
    }
    guard !options.directory.isEmpty else { throw reader.usage("--data DIR is required") }
    return options
}

enum HistoryRun {
    static func run(_ options: HistoryOptions) throws(BenchError) -> Int32 {
        let menu = Menu.standard
        let last = options.lastDay ?? Int32(Int64(time(nil)) / 86_400)
        let first = last - Int32(options.days) + 1
        var hours: [JournalRecord] = []
        var sold = [UInt64](repeating: 0, count: menu.juices.count)
        var served: UInt64 = 0
        var takings: UInt64 = 0
        for day in first...last {
            for hour in 0..<options.hoursPerDay {
                // A few of each juice, varying by day and hour so no two days read alike.
                var counts: [JournalRecord.HourCount] = []
                var money: [JournalRecord.HourCount] = []   // after every `s:` (a Y record's order)
                var orders: UInt64 = 0
                for (j, juice) in menu.juices.enumerated() {
                    let n = UInt64((Int(day) &* 7 &+ hour &* 3 &+ j) % 5 + 1)
                    counts.append(JournalRecord.HourCount(.sold, juice.name, n))
                    // The standard menu has prices: each sale took its price (the money columns
                    // of the reports and the CSVs then read as a real shop's).
                    if let price = juice.price {
                        money.append(JournalRecord.HourCount(.takings, juice.name, UInt64(price) * n))
                        takings += UInt64(price) * n
                    }
                    sold[j] += n
                    orders += n
                }
                counts += money
                served += orders
                let start = Int64(day) * 86_400 + Int64(8 + hour) * 3600
                hours.append(.hour(start: start, day: day, offset: 0, served: orders, refused: 0, counts: counts))
            }
        }
        var records: [JournalRecord] = [.header(lsn: 0, seq: 0, served: served, refused: 0)]
        for fruit in menu.fruits { records.append(.fruit(name: fruit.name, stock: 1_000_000)) }
        for (j, juice) in menu.juices.enumerated() { records.append(.sold(juice: juice.name, count: sold[j])) }
        records += hours
        // The money since creation comes after the hours (a snapshot's order F D L T K Y P Q M G).
        if takings > 0 { records.append(.money(MoneyTotals(takings: takings))) }
        records.append(.end(records: records.count))
        var bytes: [UInt8] = []
        for record in records { bytes += record.framed() }

        let path = options.directory + "/snapshot"
        let files = FileManager.default
        guard !files.fileExists(atPath: path) else { throw BenchError.fatal("\(path) exists: history writes a new data directory only") }
        do {
            try files.createDirectory(atPath: options.directory, withIntermediateDirectories: true)
            try Data(bytes).write(to: URL(fileURLWithPath: path))
        } catch {
            throw BenchError.fatal("cannot write \(path): \(error)")
        }
        print("wrote \(path): \(options.days) days (\(BusinessCalendar.dateText(first)) to \(BusinessCalendar.dateText(last))), "
              + "\(hours.count) hours, \(served) orders")
        return 0
    }
}

let historyUsage = """
usage: juice-bench history --data DIR [--days N] [--last YYYY-MM-DD] [--hours H]

Writes a new data directory for juice-server (standard menu) whose snapshot holds N days of the
shop's history (default 430, ending --last, default today in UTC): H hours a day (default 10,
from 08:00 UTC) with a few of each juice sold at its price. Start the server on it with --data DIR --timezone
UTC. bench.sh's report scenarios (S8r, S8c, S8d) run on such a store.

"""

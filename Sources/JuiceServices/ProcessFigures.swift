import JuiceCore
import JuiceDomain
import JuicePlatform
import JuiceLog
import JuiceLoop

/// The process figures `/metrics` reports (`process_start_time_seconds`,
/// `process_resident_memory_bytes`), read from /proc the way Prometheus's own client libraries
/// do; nil where /proc does not say.
package enum ProcessFigures {
    /// Resident set size: /proc/self/statm's second field, in pages.
    package static func residentBytes() -> UInt64? {
        guard let statm = read("/proc/self/statm") else { return nil }
        let fields = statm.split(separator: " ")
        guard fields.count > 1, let pages = UInt64(fields[1]) else { return nil }
        return pages * UInt64(sysconf(Int32(_SC_PAGESIZE)))
    }

    /// The process's start, unix seconds: boot time (/proc/stat `btime`) plus the start time in
    /// clock ticks since boot (/proc/self/stat, field 22). Read once: it does not change.
    package static let startTimeSeconds: Double? = {
        guard let stat = read("/proc/self/stat"), let close = stat.lastIndex(of: ")"),
              let all = read("/proc/stat"),
              let btimeLine = all.split(separator: "\n").first(where: { $0.hasPrefix("btime ") }),
              let btime = Double(btimeLine.dropFirst("btime ".count)) else { return nil }
        // Fields after the command name (which may hold spaces), from field 3 (state) on.
        let rest = stat[stat.index(after: close)...].split(separator: " ")
        let ticksPerSecond = Double(sysconf(Int32(_SC_CLK_TCK)))
        guard rest.count > 19, let ticks = Double(rest[19]), ticksPerSecond > 0 else { return nil }
        return btime + ticks / ticksPerSecond
    }()

    private static func read(_ path: String) -> String? {
        Platform.readProcFile(path)
    }
}

extension MetricsValues {
    /// The store's figures with this process's, for `GET /metrics`:
    /// `Metrics.text(.current(store.salesSnapshot(), lineClients: n, eventClients: m))`.
    package static func current(_ sales: SalesValues, lineClients: Int, eventClients: Int, readOnly: Bool) -> MetricsValues {
        MetricsValues(sales: sales, lineClients: lineClients, eventClients: eventClients, readOnly: readOnly,
                      processStartSeconds: ProcessFigures.startTimeSeconds, residentBytes: ProcessFigures.residentBytes())
    }
}

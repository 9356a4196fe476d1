import Glibc

/// This process's CPU time, so reports can show whether juice-bench itself was near a full
/// core (then it, not the server, might be the bottleneck).
struct CPUUsage {
    var userSeconds: Double
    var systemSeconds: Double

    static func ofThisProcess() -> CPUUsage {
        var usage = rusage()
        _ = getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
        func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }
        return CPUUsage(userSeconds: seconds(usage.ru_utime), systemSeconds: seconds(usage.ru_stime))
    }

    static func - (end: CPUUsage, start: CPUUsage) -> CPUUsage {
        CPUUsage(userSeconds: end.userSeconds - start.userSeconds, systemSeconds: end.systemSeconds - start.systemSeconds)
    }

    /// Busy fraction of one core over `seconds` of wall time.
    func utilization(over seconds: Double) -> Double {
        seconds > 0 ? (userSeconds + systemSeconds) / seconds : 0
    }
}

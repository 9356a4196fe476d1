import JuicePlatform

/// This process's CPU time, so reports can show whether juice-bench itself was near a full
/// core (then it, not the server, might be the bottleneck).
struct CPUUsage {
    var userSeconds: Double
    var systemSeconds: Double

    static func ofThisProcess() -> CPUUsage {
        let (user, system) = Platform.processCPUSeconds()
        return CPUUsage(userSeconds: user, systemSeconds: system)
    }

    static func - (end: CPUUsage, start: CPUUsage) -> CPUUsage {
        CPUUsage(userSeconds: end.userSeconds - start.userSeconds, systemSeconds: end.systemSeconds - start.systemSeconds)
    }

    /// Busy fraction of one core over `seconds` of wall time.
    func utilization(over seconds: Double) -> Double {
        seconds > 0 ? (userSeconds + systemSeconds) / seconds : 0
    }
}

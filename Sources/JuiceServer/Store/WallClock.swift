import JuicePlatform

/// The wall clock, in whole unix seconds: what stamps orders into `MinuteCounts`. `time()` is
/// read without a system call on Linux (vDSO) and exists on every platform; whole seconds are
/// plenty for per-minute counts.
enum WallClock {
    @Sendable static func unixSeconds() -> Int64 {
        Int64(time(nil))
    }
}

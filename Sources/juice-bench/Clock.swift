import JuicePlatform

/// Nanoseconds on the monotonic clock. All timing in juice-bench uses this one clock, so
/// differences are immune to wall-clock adjustments (NTP, manual changes).
typealias Nanos = UInt64

@inline(__always)
func monotonicNow() -> Nanos {
    Platform.monotonicNanoseconds()
}

/// Converts a duration given in (possibly fractional) seconds, as on the command line.
func nanos(seconds: Double) -> Nanos {
    seconds <= 0 ? 0 : Nanos(seconds * 1e9)
}

func seconds(_ n: Nanos) -> Double {
    Double(n) / 1e9
}

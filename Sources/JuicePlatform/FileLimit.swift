#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension Platform {
    /// Each connection costs a descriptor. Raises this process's soft RLIMIT_NOFILE toward
    /// `wanted` (nil: as far as allowed), never past the hard limit, and returns the limits as
    /// they now stand (nil if they cannot be read). The one RLIMIT_NOFILE raiser of the package.
    @discardableResult
    public static func raiseOpenFileLimit(toward wanted: UInt64? = nil) -> (soft: UInt64, hard: UInt64)? {
        var limit = rlimit()
        guard getOpenFileLimit(&limit) == 0 else { return nil }
        let target = min(wanted ?? UInt64(limit.rlim_max), UInt64(limit.rlim_max), openFileCeiling)
        if UInt64(limit.rlim_cur) < target {
            var raised = limit
            raised.rlim_cur = rlim_t(target)
            if setOpenFileLimit(&raised) == 0 { limit = raised }
        }
        return (UInt64(limit.rlim_cur), UInt64(limit.rlim_max))
    }
}

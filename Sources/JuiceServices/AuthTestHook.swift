import JuiceCore
import JuiceDomain
import JuicePlatform
import JuiceLog
import JuiceLoop

/// Lets a test of the built executable see an AUTH lockout end without waiting a minute.
/// Debug builds only, which is what `swift test` runs; in a release build the variable means
/// nothing and the documented minute holds.
///
/// - `JUICE_TEST_AUTH_WINDOW_SECONDS=N` (1...3600): wrong tokens are counted per address within
///   N seconds instead of 60, so a lockout lasts at most N seconds.
package enum AuthTestHook {
    package static func policy(_ policy: AuthFailureLimiter.Policy) -> AuthFailureLimiter.Policy {
        #if DEBUG
        guard let text = getenv("JUICE_TEST_AUTH_WINDOW_SECONDS").map({ String(cString: $0) }),
              let seconds = UInt64(text), (1...3600).contains(seconds) else { return policy }
        var shorter = policy
        shorter.windowNanoseconds = seconds * 1_000_000_000
        return shorter
        #else
        return policy
        #endif
    }
}

import Dispatch
import JuiceCore
import JuicePlatform
import JuiceLog
import Synchronization

/// Lets a test hang the loop on cue, to show that the systemd watchdog's pings come from the
/// loop itself and stop when it hangs. Debug builds only (what `swift test` runs), like
/// `JournalTestHook`; in a release build `install` is empty and the variable means nothing.
///
/// - `JUICE_TEST_BLOCK_LOOP=PATH`: once the file PATH exists, the loop's queue blocks for good
///   (nothing is accepted, read, answered or pinged), after logging `test hook: blocking the loop`.
///   The file lets the test arm it once the server is up; checking costs one `access` every
///   50 ms, only where the variable is set.
package enum LoopTestHook {
    #if DEBUG
    private static let trigger: String? = getenv("JUICE_TEST_BLOCK_LOOP").map { String(cString: $0) }
    /// Kept for the life of the process (the hook is armed once, by the first server started).
    private static let timer = Mutex<DispatchSourceTimer?>(nil)

    package static func install(on loop: DispatchQueue) {
        guard let trigger else { return }
        timer.withLock { timer in
            guard timer == nil else { return }
            let source = DispatchSource.makeTimerSource(queue: loop)
            source.schedule(deadline: .now(), repeating: .milliseconds(50))
            source.setEventHandler {
                guard access(trigger, F_OK) == 0 else { return }
                Log.lifecycle("test hook: blocking the loop")
                while true { sleep(3600) }
            }
            source.resume()
            timer = source
        }
    }
    #else
    @inline(__always) package static func install(on loop: DispatchQueue) {}
    #endif
}

import JuiceCore
import JuiceDomain
import JuicePlatform
import JuiceLog

/// Lets a test make the disk do what no real file can be asked to do on cue. Debug builds only,
/// which is what `swift test` and the browser tests run; in a release build the hooks are empty
/// and the variables mean nothing.
///
/// - `JUICE_TEST_HANG_JOURNAL_SYNC` (set): every journal sync hangs before it starts (nothing is
///   ever acknowledged).
/// - `JUICE_TEST_KILL_AFTER_SYNC=PATH`: once the file PATH exists, the server SIGKILLs itself
///   right after its next journal sync, before the loop hears of it: the changes are durable
///   but nobody gets their answer (a crash between the disk and the reply). The file lets the
///   test arm it after its setup; checking it costs one `access` per sync, in debug builds.
package enum JournalTestHook {
    #if DEBUG
    private static let hangSync = getenv("JUICE_TEST_HANG_JOURNAL_SYNC") != nil
    private static let killTrigger: String? = getenv("JUICE_TEST_KILL_AFTER_SYNC").map { String(cString: $0) }

    package static func beforeSync() {
        guard hangSync else { return }
        while true { sleep(3600) }
    }

    package static func afterSync() {
        guard let killTrigger, access(killTrigger, F_OK) == 0 else { return }
        kill(getpid(), SIGKILL)
    }
    #else
    @inline(__always) package static func beforeSync() {}
    @inline(__always) package static func afterSync() {}
    #endif
}

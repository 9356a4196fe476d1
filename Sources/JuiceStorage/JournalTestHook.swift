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
/// - `JUICE_TEST_KILL_IN_ROTATION=STEP`: the first compaction SIGKILLs the server at `STEP` of
///   starting a new journal (`GroupCommit.compact`, `JournalFile.rotate`): `snapshot` (the new
///   snapshot is in place, no `journal.next` yet), `next` (`journal.next` written and synced, not
///   renamed), `renamed` (renamed over `journal`, the directory not synced), `rotated` (done,
///   before the records in flight are written to it and it is grown).
package enum JournalTestHook {
    #if DEBUG
    private static let hangSync = getenv("JUICE_TEST_HANG_JOURNAL_SYNC") != nil
    private static let killTrigger: String? = getenv("JUICE_TEST_KILL_AFTER_SYNC").map { String(cString: $0) }
    private static let killInRotation: String? = getenv("JUICE_TEST_KILL_IN_ROTATION").map { String(cString: $0) }

    package static func beforeSync() {
        guard hangSync else { return }
        while true { sleep(3600) }
    }

    package static func afterSync() {
        guard let killTrigger, access(killTrigger, F_OK) == 0 else { return }
        kill(getpid(), SIGKILL)
    }

    package static func rotation(_ step: String) {
        guard killInRotation == step else { return }
        kill(getpid(), SIGKILL)
    }
    #else
    @inline(__always) package static func beforeSync() {}
    @inline(__always) package static func afterSync() {}
    @inline(__always) package static func rotation(_ step: String) {}
    #endif
}

import JuicePlatform

/// Lets a test make the disk stop answering, which no real file can be asked to do on cue:
/// with `JUICE_TEST_HANG_JOURNAL_SYNC` set, every journal sync hangs before it starts (nothing
/// is ever acknowledged). And lets a test crash the server at the worst moment for a client:
/// with `JUICE_TEST_KILL_AFTER_SYNC_FILE=PATH`, once PATH exists, the next journal sync is
/// followed by SIGKILL before any reply it released is sent (the change is durable, its client
/// never hears of it). Debug builds only, which is what `swift test` runs; in a release build
/// the hooks are empty and the variables mean nothing.
enum JournalTestHook {
    #if DEBUG
    private static let hangSync = getenv("JUICE_TEST_HANG_JOURNAL_SYNC") != nil

    static func beforeSync() {
        guard hangSync else { return }
        while true { sleep(3600) }
    }

    private static let killCue = getenv("JUICE_TEST_KILL_AFTER_SYNC_FILE").map { String(cString: $0) }

    static func afterSync() {
        guard let killCue, access(killCue, F_OK) == 0 else { return }
        kill(getpid(), SIGKILL)
    }
    #else
    @inline(__always) static func beforeSync() {}
    @inline(__always) static func afterSync() {}
    #endif
}

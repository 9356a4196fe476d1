import JuicePlatform

/// Lets a test make the disk stop answering, which no real file can be asked to do on cue:
/// with `JUICE_TEST_HANG_JOURNAL_SYNC` set, every journal sync hangs before it starts (nothing
/// is ever acknowledged). Debug builds only, which is what `swift test` runs; in a release
/// build the hook is empty and the variable means nothing.
enum JournalTestHook {
    #if DEBUG
    private static let hangSync = getenv("JUICE_TEST_HANG_JOURNAL_SYNC") != nil

    static func beforeSync() {
        guard hangSync else { return }
        while true { sleep(3600) }
    }
    #else
    @inline(__always) static func beforeSync() {}
    #endif
}

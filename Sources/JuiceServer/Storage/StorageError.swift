import JuicePlatform

/// Why the data directory cannot be used, or a journal write failed: the one error type of
/// storage, in words that name the file (socket and process calls have `SystemError`).
///
/// At startup it refuses to start (exit 1, see `Storage.open`). On the journal thread it is fatal
/// (`stopServer`, exit 3): a change that could not be kept was never acknowledged, and must not be.
public struct StorageError: Error, CustomStringConvertible {
    public let description: String

    init(_ description: String) { self.description = description }

    /// "cannot open journal /data/journal: No space left on device": what failed, and `errno`'s
    /// words. Build it right after the call that failed.
    init(_ what: String, errno code: Int32) {
        self.init("\(what): \(Platform.describe(code))")
    }

    /// Logs the failure and ends the process with status 3. Redis's contract: the server must
    /// not acknowledge a change it could not keep, nor serve state it cannot keep.
    func stopServer() -> Never {
        Log.error(description + "; stopping: no change after the last acknowledged one was acknowledged")
        // The reason must reach the log where stderr is alive; a stuck stderr gets a second.
        Log.flush(seconds: 1)
        // _exit, not exit: this runs on the journal thread while the loop may still be running.
        _exit(3)
    }
}

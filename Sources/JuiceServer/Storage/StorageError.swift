import JuicePlatform

/// Why the data directory cannot be used, or a journal write failed: the one error type of
/// storage, in words that name the file (socket and process calls have `SystemError`).
///
/// At startup it refuses to start (exit 1, see `Storage.open`). On the journal thread a failed
/// sync is fatal (`stopServer`, exit 3). A lack of room (`isOutOfRoom`) is not: the store goes
/// read-only until there is room again (see `JournalRoom`).
public struct StorageError: Error, CustomStringConvertible {
    public let description: String
    /// The `errno` of the call that failed, when one did.
    let code: Int32?

    init(_ description: String) {
        self.description = description
        code = nil
    }

    /// "cannot open journal /data/journal: No space left on device": what failed, and `errno`'s
    /// words. Build it right after the call that failed.
    init(_ what: String, errno code: Int32) {
        description = "\(what): \(Platform.describe(code))"
        self.code = code
    }

    /// The file system has no room for what was written (full, over quota, over the file size
    /// limit, or mounted read-only): the server can wait for room instead of stopping.
    var isOutOfRoom: Bool {
        guard let code else { return false }
        return code == ENOSPC || code == EDQUOT || code == EFBIG || code == EROFS
    }

    /// How a refused change explains this lack of room: "disk full: cannot grow the journal (No
    /// space left on device)". `what` says which write found it.
    func readOnlyReason(_ what: String) -> String {
        let kind = switch code {
        case EDQUOT?: "disk quota exceeded"
        case EFBIG?: "journal too large for the file system"
        case EROFS?: "file system read-only"
        default: "disk full"
        }
        return "\(kind): \(what) (\(code.map(Platform.describe) ?? description))"
    }

    /// Logs the failure and ends the process with status 3. Redis's contract: the server must
    /// not acknowledge a change it could not keep, nor serve state it cannot keep.
    func stopServer() -> Never {
        Log.error(description + "; stopping: no change after the last acknowledged one was acknowledged")
        // _exit, not exit: this runs on the journal thread while the loop may still be running.
        _exit(3)
    }
}

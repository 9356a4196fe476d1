import JuiceCore
import JuiceDomain
import JuicePlatform
import JuiceLog

/// Why the data directory cannot be used, or a journal write failed: the one error type of
/// storage. Each case names the file (and, for damage, the byte offset); `description` is the
/// sentence the log and a refused start print (socket and process calls have `SystemError`).
///
/// At startup it refuses to start (exit 1, see `Storage.open`). On the journal thread a failed
/// sync is fatal (`stopServer`, exit 3). A lack of room (`isOutOfRoom`) is not: the store goes
/// read-only until there is room again (see `JournalRoom`).
public enum StorageError: Error, CustomStringConvertible {
    /// A call on a data file failed with `errno`: `what` was being done to `path`.
    case failed(Operation, path: String, errno: Int32)
    /// An fsync or fdatasync failed. Never a lack of room to wait out, whatever its errno: the
    /// kernel may have dropped the pages it could not write (PROTOCOL.md, Durability).
    case syncFailed(path: String, errno: Int32)
    /// Recovery found damage in a data file: where, and why. Nothing on disk was changed.
    case corrupt(DataFile, path: String, offset: Int, reason: String)
    /// A backup file is damaged, cut short, or not a backup (`BackupFile`): where, and why.
    case badBackup(path: String, offset: Int, reason: String)
    /// Another process holds the directory's LOCK.
    case inUse(directory: String)
    case cannotCreateDirectory(String, reason: String)
    case unreadable(path: String)
    case invalidMenu(path: String)
    /// The calendar file does not say `<IANA time zone> <HH:MM>`.
    case invalidCalendar(path: String)
    /// `store-id` holds something that is not an id.
    case invalidStoreID(path: String)
    /// The new menu drops fruit the data still has in stock ("kiwi=3 mango=1").
    case menuDropsStock(directory: String, stocked: String)
    /// The new menu prices in another currency than the data's amounts were taken in.
    case menuChangesCurrency(directory: String, from: String, to: String)
    /// A compaction failed (fatal, see `GroupCommit`).
    indirect case compaction(StorageError)

    public enum DataFile: String, Sendable {
        case snapshot, journal
    }

    /// What was being done when a call failed: "cannot <operation> <path>: <errno's words>".
    public enum Operation: String, Sendable {
        case openJournal = "open journal", prepareJournal = "prepare journal", writeJournal = "write journal"
        case readJournal = "read journal", growJournal = "grow journal"
        case create, write, rename, openDirectory = "open directory", openLock = "open", read
    }

    public var description: String {
        switch self {
        case .failed(let operation, let path, let code): "cannot \(operation.rawValue) \(path): \(Platform.describe(code))"
        case .syncFailed(let path, let code): "fsync of \(path) failed: \(Platform.describe(code))"
        case .corrupt(let file, let path, let offset, let reason):
            "\(file.rawValue) \(path) is corrupt at offset \(offset) (\(reason)); refusing to start, and nothing on disk was changed. Inspect it, or restore a backup"
        case .badBackup(let path, let offset, let reason):
            "backup \(path) is damaged at offset \(offset) (\(reason))"
        case .inUse(let directory): "data directory \(directory) is in use by another juice-server"
        case .cannotCreateDirectory(let directory, let reason): "cannot create data directory \(directory): \(reason)"
        case .unreadable(let path): "cannot read \(path)"
        case .invalidMenu(let path): "\(path) is not a valid menu; move it away to start over"
        case .invalidCalendar(let path): "\(path) does not name a time zone and a day start (e.g. \"Asia/Seoul 04:00\"); fix it or move it away"
        case .invalidStoreID(let path):
            "\(path) is not a store id; delete it to give the store a new one (every client then takes the whole state again)"
        case .menuDropsStock(let directory, let stocked):
            "the new menu drops fruit that is still in stock in \(directory) (\(stocked)); sell or SET it to 0 first, or start with --accept-menu-change to discard it"
        case .menuChangesCurrency(let directory, let from, let to):
            "the new menu's currency (\(to)) is not the one the sales in \(directory) were taken in (\(from)): their amounts would read as \(to); start with --accept-menu-change to mix them anyway"
        case .compaction(let error): "compaction: \(error)"
        }
    }

    /// The file system has no room for what was written (full, over quota, over the file size
    /// limit, or mounted read-only): the server can wait for room instead of stopping.
    package var isOutOfRoom: Bool {
        guard case .failed(_, _, let code) = self else { return false }
        return code == ENOSPC || code == EDQUOT || code == EFBIG || code == EROFS
    }

    /// How a refused change explains this lack of room: "disk full: cannot grow the journal (No
    /// space left on device)". `what` says which write found it.
    package func readOnlyReason(_ what: String) -> String {
        guard case .failed(_, _, let code) = self else { return "\(what) (\(description))" }
        let kind = switch code {
        case EDQUOT: "disk quota exceeded"
        case EFBIG: "journal too large for the file system"
        case EROFS: "file system read-only"
        default: "disk full"
        }
        return "\(kind): \(what) (\(Platform.describe(code)))"
    }

    /// Logs the failure and ends the process with status 3. Redis's contract: the server must
    /// not acknowledge a change it could not keep, nor serve state it cannot keep.
    package func stopServer() -> Never {
        Log.error(description + "; stopping: no change after the last acknowledged one was acknowledged")
        // The reason must reach the log where stderr is alive; a stuck stderr gets a second.
        Log.flush(seconds: 1)
        // _exit, not exit: this runs on the journal thread while the loop may still be running.
        _exit(3)
    }
}

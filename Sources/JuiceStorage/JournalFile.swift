import JuiceCore
import JuiceDomain
import JuicePlatform
import JuiceLog
import Synchronization

/// The journal file: records appended at the end of the last one, made durable with `sync`.
/// It does no threading of its own: `GroupCommit` calls it on its one journal thread (so records
/// land in order).
///
/// The file is preallocated in chunks of written zeros and written with `pwrite` at the end of
/// the last record: an `fdatasync` that changes neither the file's size nor its extents (as
/// writing into `fallocate`d space would) has only data to flush; it was the fastest of the three
/// (README, Performance: "Design choices, measured").
/// The unused tail reads as zeros, which recovery takes as the end of the journal.
///
/// Growing is what a full disk makes fail (`ENOSPC`), so `GroupCommit` grows the file ahead of
/// need (`grow`), and the store refuses changes while it cannot (see `JournalRoom`); `append`
/// grows by itself only as a last resort.
package final class JournalFile: Sendable {
    package let path: String
    private let directory: String
    /// The open file, where the next record goes, where the last one starts, and how far the
    /// file is preallocated: behind a lock that is never contended (after init only the journal
    /// thread uses the file), so that the compiler, not a promise, checks what the loop and the
    /// journal thread share. A compaction swaps the file for a new one (`rotate`).
    private let state: Mutex<State>
    private struct State {
        var fd: Int32
        var end: Int
        var allocated: Int
        /// The offset of the last record written (nil: the file holds none).
        var lastRecord: Int?
    }
    package static let chunk = 4 << 20
    private static let zeros = [UInt8](repeating: 0, count: 1 << 20)
    /// The new journal a compaction prepares before renaming it over `journal` (`rotate`); one a
    /// crash left behind is removed at start (`removeLeftover`).
    package static let nextSuffix = ".next"

    /// Opens the journal for appending after its first `validLength` bytes (what recovery judged
    /// good), the last record starting at `lastRecord`. Anything after them (a torn tail, old
    /// preallocation) is cleared, so a stale byte there can never be read as a record.
    package init(path: String, directory: String, validLength: Int, lastRecord: Int? = nil) throws(StorageError) {
        self.path = path
        self.directory = directory
        let fd = Platform.open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw .failed(.openJournal, path: path, errno: errno) }
        guard ftruncate(fd, off_t(validLength)) == 0, Platform.syncFile(fd) == 0 else {
            let code = errno
            Platform.close(fd)
            throw .failed(.prepareJournal, path: path, errno: code)
        }
        state = Mutex(State(fd: fd, end: validLength, allocated: validLength, lastRecord: validLength > 0 ? lastRecord : nil))
        try? AtomicFile.syncDirectory(directory)
    }

    deinit {
        state.withLock { Platform.close($0.fd) }
    }

    /// Writes `bytes` (whole framed records, the last one starting at `lastRecord` in them) after
    /// the last record, growing the preallocated space first if needed. Not durable until `sync`.
    /// On failure nothing moves: a retry writes the same place again.
    package func append(_ bytes: [UInt8], lastRecord: Int) throws(StorageError) {
        try state.withLock { (state) throws(StorageError) in
            if state.end + bytes.count > state.allocated { try grow(&state, to: JournalFile.chunks(covering: state.end + bytes.count)) }
            let fd = state.fd
            guard bytes.withUnsafeBytes({ Platform.pwriteAll(fd, $0, at: state.end) }) else {
                throw .failed(.writeJournal, path: path, errno: errno)
            }
            state.lastRecord = state.end + lastRecord
            state.end += bytes.count
        }
    }

    /// fdatasync (F_FULLFSYNC on Darwin): every write made before it is on disk. Preallocation
    /// leaves it only data to flush. Under the lock, like every use of the file: a rotation
    /// never closes the file a sync is using.
    package func sync() throws(StorageError) {
        try state.withLock { (state) throws(StorageError) in
            guard Platform.syncData(state.fd) == 0 else { throw .syncFailed(path: path, errno: errno) }
        }
    }

    /// Starts a new journal (after a compaction put the old one's records into the snapshot):
    /// writes `journal.next` holding a copy of the last record written here, fsyncs it, renames
    /// it over `journal`, fsyncs the directory, and appends there from now on. The old file is
    /// never written again, so a copy that is reading it reads it whole. Its preallocation stays
    /// behind: the caller grows the new one, as at start.
    ///
    /// The copied record is one the snapshot already holds (its lsn is at most the snapshot's),
    /// so replay skips it; it is there so that the new journal is never empty and says which lsn
    /// it continues from. A snapshot older than it, copied together with it, then lacks the
    /// records before it: recovery refuses that pair ("records are missing"), where an empty new
    /// journal would have started without them.
    ///
    /// A file holding no record yet is kept (there is nothing to drop); returns whether it was
    /// replaced. For lack of room `journal.next` is removed and the error `isOutOfRoom`: the old
    /// journal is kept, whole, and stays in use. Once the rename is made, a failed directory
    /// fsync throws `syncFailed` (the caller stops the server: the rename may not be on disk).
    package func rotate() throws(StorageError) -> Bool {
        try state.withLock { (state) throws(StorageError) -> Bool in
            guard let start = state.lastRecord else { return false }
            var record = [UInt8](repeating: 0, count: state.end - start)
            let fd = state.fd
            let read = record.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, off_t(start)) }
            guard read == record.count else { throw .failed(.readJournal, path: path, errno: read < 0 ? errno : EIO) }
            let next = path + JournalFile.nextSuffix
            // Made as `AtomicFile` makes a file (a new one, written, fsynced; removed on failure,
            // so on a full disk it holds no room), then opened to append to: a failure leaves
            // the old journal in use.
            try AtomicFile.stage(record, at: next)
            let new = Platform.open(next, O_RDWR | O_CLOEXEC)
            guard new >= 0 else {
                let code = errno
                unlink(next)
                throw .failed(.create, path: next, errno: code)
            }
            JournalTestHook.rotation("next")
            guard rename(next, path) == 0 else {
                let code = errno
                Platform.close(new)
                unlink(next)
                throw .failed(.rename, path: next, errno: code)
            }
            // The new file is `journal` now, whatever happens next: append to it.
            Platform.close(fd)
            state = State(fd: new, end: record.count, allocated: record.count, lastRecord: 0)
            JournalTestHook.rotation("renamed")
            try AtomicFile.syncDirectory(directory)
            return true
        }
    }

    /// Removes a `journal.next` that a crash during a compaction left behind (it was never
    /// renamed into place, so it holds nothing the journal needs). At start, after recovery.
    package static func removeLeftover(of path: String) {
        let next = path + nextSuffix
        guard unlink(next) != 0 else { return }
        let code = errno
        guard code != ENOENT else { return }
        Log.warning("cannot remove \(next), left by a compaction a crash interrupted (\(Platform.describe(code))); the server does not read it")
    }

    /// Preallocated bytes after the last record: what can be appended without growing.
    package var free: Int { state.withLock { $0.allocated - $0.end } }

    /// Bytes up to the end of the last record.
    package var length: Int { state.withLock { $0.end } }

    /// Grows the preallocated space to leave at least `room` bytes after the last record, in
    /// whole chunks (see `grow(_:to:)`).
    package func grow(leaving room: Int) throws(StorageError) {
        try state.withLock { (state) throws(StorageError) in try grow(&state, to: JournalFile.chunks(covering: state.end + room)) }
    }

    /// The smallest whole number of chunks that holds `bytes`.
    package static func chunks(covering bytes: Int) -> Int {
        (bytes + chunk - 1) / chunk * chunk
    }

    /// Grows the preallocated space to `size` with zeros (nothing if it is that big already).
    /// The new size is made durable with an fsync once per growth, so the writes inside it need
    /// only fdatasync. For lack of room it gives back what it took (the file is cut to its old
    /// size, so the disk's last bytes stay free for others) and throws an error that
    /// `isOutOfRoom`; a failed fsync throws too, and the caller stops the server.
    private func grow(_ state: inout State, to size: Int) throws(StorageError) {
        guard size > state.allocated else { return }
        let fd = state.fd
        var offset = state.allocated
        while offset < size {
            let length = min(JournalFile.zeros.count, size - offset)
            guard JournalFile.zeros.withUnsafeBytes({ Platform.pwriteAll(fd, UnsafeRawBufferPointer(rebasing: $0[..<length]), at: offset) }) else {
                let error = StorageError.failed(.growJournal, path: path, errno: errno)
                _ = ftruncate(fd, off_t(state.allocated))
                throw error
            }
            offset += length
        }
        guard Platform.syncFile(fd) == 0 else { throw .syncFailed(path: path, errno: errno) }
        state.allocated = size
    }
}

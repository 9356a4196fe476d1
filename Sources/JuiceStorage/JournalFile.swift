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
    private let fd: Int32
    /// Where the next record goes, and how far the file is preallocated: behind a lock that is
    /// never contended (after init only the journal thread uses the file), so that the
    /// compiler, not a promise, checks what the loop and the journal thread share.
    private let extent: Mutex<Extent>
    private struct Extent {
        var end: Int
        var allocated: Int
    }
    package static let chunk = 4 << 20
    private static let zeros = [UInt8](repeating: 0, count: 1 << 20)

    /// Opens the journal for appending after its first `validLength` bytes (what recovery judged
    /// good). Anything after them (a torn tail, old preallocation) is cleared, so a stale byte
    /// there can never be read as a record.
    package init(path: String, directory: String, validLength: Int) throws(StorageError) {
        self.path = path
        fd = Platform.open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw .failed(.openJournal, path: path, errno: errno) }
        guard ftruncate(fd, off_t(validLength)) == 0, Platform.syncFile(fd) == 0 else {
            let code = errno
            Platform.close(fd)
            throw .failed(.prepareJournal, path: path, errno: code)
        }
        extent = Mutex(Extent(end: validLength, allocated: validLength))
        try? AtomicFile.syncDirectory(directory)
    }

    deinit {
        Platform.close(fd)
    }

    /// Writes `bytes` after the last record, growing the preallocated space first if needed.
    /// Not durable until `sync`. On failure nothing moves: a retry writes the same place again.
    package func append(_ bytes: [UInt8]) throws(StorageError) {
        try extent.withLock { (extent) throws(StorageError) in
            if extent.end + bytes.count > extent.allocated { try grow(&extent, to: JournalFile.chunks(covering: extent.end + bytes.count)) }
            guard bytes.withUnsafeBytes({ Platform.pwriteAll(fd, $0, at: extent.end) }) else {
                throw .failed(.writeJournal, path: path, errno: errno)
            }
            extent.end += bytes.count
        }
    }

    /// fdatasync (F_FULLFSYNC on Darwin): every write made before it is on disk. Preallocation
    /// leaves it only data to flush.
    package func sync() throws(StorageError) {
        guard Platform.syncData(fd) == 0 else { throw .syncFailed(path: path, errno: errno) }
    }

    /// Empties the journal (after a compaction put its records into the snapshot). Its
    /// preallocation goes too: the caller grows it again.
    package func reset() throws(StorageError) {
        guard ftruncate(fd, 0) == 0, Platform.syncFile(fd) == 0 else {
            throw .failed(.resetJournal, path: path, errno: errno)
        }
        extent.withLock { $0 = Extent(end: 0, allocated: 0) }
    }

    /// Preallocated bytes after the last record: what can be appended without growing.
    package var free: Int { extent.withLock { $0.allocated - $0.end } }

    /// Grows the preallocated space to leave at least `room` bytes after the last record, in
    /// whole chunks (see `grow(_:to:)`).
    package func grow(leaving room: Int) throws(StorageError) {
        try extent.withLock { (extent) throws(StorageError) in try grow(&extent, to: JournalFile.chunks(covering: extent.end + room)) }
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
    private func grow(_ extent: inout Extent, to size: Int) throws(StorageError) {
        guard size > extent.allocated else { return }
        var offset = extent.allocated
        while offset < size {
            let length = min(JournalFile.zeros.count, size - offset)
            guard JournalFile.zeros.withUnsafeBytes({ Platform.pwriteAll(fd, UnsafeRawBufferPointer(rebasing: $0[..<length]), at: offset) }) else {
                let error = StorageError.failed(.growJournal, path: path, errno: errno)
                _ = ftruncate(fd, off_t(extent.allocated))
                throw error
            }
            offset += length
        }
        guard Platform.syncFile(fd) == 0 else { throw .syncFailed(path: path, errno: errno) }
        extent.allocated = size
    }
}

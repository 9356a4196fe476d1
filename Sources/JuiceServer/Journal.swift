import Dispatch
import Glibc

/// The append-only journal file and its writer thread. The loop never blocks on the disk: it
/// hands a batch of framed records to `append`, which writes and fdatasyncs them on the journal's
/// own queue and then calls back. A failed write or sync is fatal (Redis's contract): the server
/// must not acknowledge a change it could not keep, and must not serve state it cannot keep.
final class Journal: Sendable {
    let path: String
    let directory: String
    private let fd: Int32
    private let queue = DispatchQueue(label: "juice-server.journal")

    init(path: String, directory: String) throws(StorageError) {
        self.path = path
        self.directory = directory
        fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw StorageError("cannot open journal \(path): \(String(cString: strerror(errno)))") }
    }

    deinit {
        close(fd)
    }

    func append(_ bytes: [UInt8], upTo lsn: UInt64, then done: @escaping @Sendable () -> Void) {
        queue.async { [fd, path] in
            bytes.withUnsafeBytes { raw in
                var offset = 0
                while offset < raw.count {
                    let n = write(fd, raw.baseAddress! + offset, raw.count - offset)
                    if n < 0 {
                        if errno == EINTR { continue }
                        Journal.fail("write to journal \(path) failed: \(String(cString: strerror(errno)))")
                    }
                    offset += n
                }
            }
            if fdatasync(fd) != 0 {
                Journal.fail("fdatasync of journal \(path) failed: \(String(cString: strerror(errno)))")
            }
            done()
        }
    }

    /// Compaction, queued behind every write handed over before it: the snapshot (the state at
    /// the last record written) goes into place atomically, then the journal starts empty. A crash
    /// in between is harmless: replay skips journal records the snapshot already holds.
    func compact(snapshot: [UInt8], then done: @escaping @Sendable () -> Void) {
        queue.async { [fd, path, directory] in
            do {
                try Storage.writeAtomically(snapshot, to: directory + "/" + Storage.snapshotName, directory: directory)
            } catch {
                Journal.fail("compaction: \(error)")
            }
            guard ftruncate(fd, 0) == 0, fsync(fd) == 0 else {
                Journal.fail("compaction: cannot reset journal \(path): \(String(cString: strerror(errno)))")
            }
            done()
        }
    }

    static func fail(_ message: String) -> Never {
        Log.error(message + "; stopping: no change after the last acknowledged one was acknowledged")
        exit(3)
    }
}

public struct StorageError: Error, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}

/// What startup recovery rebuilt besides the ledger.
struct RecoveredState {
    var history: EventHistory
    var lsn: UInt64
}

import JuiceCore
import JuiceDomain
import JuicePlatform
import JuiceLog

/// Whole files that a crash must leave either old or new, never half written: the snapshot and
/// `menu.json`, a backup `juice-server backup` keeps. Write a temp file, fsync it, rename it
/// into place, fsync the directory.
package enum AtomicFile {
    /// `uniqueTemp`: the temp file is `<path>.tmp.<pid>`, not `<path>.tmp`, for a file that
    /// other processes may write at the same moment (two `juice-server backup FILE` at once):
    /// with one shared name, the second's `stage` removes the first's temp while it is written,
    /// and the first then renames the second's half-written one into place. With its own name,
    /// each renames only its own whole file, and the last rename wins. The data directory's
    /// files keep `<path>.tmp`: one process writes them (the store's LOCK), and the next write
    /// reuses the temp a crash left instead of leaving one more behind.
    package static func write(_ bytes: [UInt8], to path: String, directory: String, mode: mode_t = 0o644,
                              uniqueTemp: Bool = false) throws(StorageError) {
        let temp = uniqueTemp ? path + ".tmp.\(getpid())" : path + ".tmp"
        try stage(bytes, at: temp, mode: mode)
        guard rename(temp, path) == 0 else {
            let code = errno
            unlink(temp)
            throw .failed(.rename, path: temp, errno: code)
        }
        try syncDirectory(directory)
    }

    /// Writes `bytes` to a new file at `temp` and makes them durable; on failure removes it.
    /// A new file, ours: one left by a crash is removed first, never written into. Opened as it
    /// was, one owned by another user or a symlink planted there would take the bytes (a backup:
    /// the keys and the tills' pairings) with its own owner and mode, or put them wherever the
    /// link points.
    package static func stage(_ bytes: [UInt8], at temp: String, mode: mode_t = 0o644) throws(StorageError) {
        unlink(temp)
        let fd = Platform.open(temp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode)
        guard fd >= 0 else { throw .failed(.create, path: temp, errno: errno) }
        let ok = Platform.writeAll(fd, bytes) && Platform.syncFile(fd) == 0
        let code = errno
        Platform.close(fd)
        guard ok else {
            // A full disk must not keep the half-written copy: it holds room others need.
            unlink(temp)
            throw .failed(.write, path: temp, errno: code)
        }
    }

    /// Makes the directory's entries durable: a file just created or renamed is not, until then.
    package static func syncDirectory(_ directory: String) throws(StorageError) {
        let fd = Platform.open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw .failed(.openDirectory, path: directory, errno: errno) }
        defer { Platform.close(fd) }
        guard Platform.syncFile(fd) == 0 else { throw .syncFailed(path: directory, errno: errno) }
    }
}

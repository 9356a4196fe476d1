import Foundation
import JuiceCore
import JuicePlatform
import JuiceStorage

/// `juice-server verify FILE`: reads a backup without starting a server, and prints what it
/// holds (`BackupSummary`) or why it is refused (the file, the offset, what is wrong).
public enum VerifyCommand {
    /// The backup at `path`, read and judged whole. Its first bytes are judged first: a file
    /// that does not begin as a backup is refused without being read whole (a 2 GB file of
    /// something else took 4 GB and 16 s), and a backup is read into memory once.
    package static func load(_ path: String) throws(StorageError) -> BackupFile.Contents {
        // O_NONBLOCK: a FIFO (or a device) must be refused below, not waited on here. Opened
        // plain, a FIFO blocked restore forever: it runs with SIGINT and SIGTERM blocked, so
        // neither Ctrl-C nor the unit's stop could end it. A plain file reads as without it.
        let fd = Platform.open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { throw .failed(.read, path: path, errno: errno) }
        defer { Platform.close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw .failed(.read, path: path, errno: errno) }
        // Why it cannot be read: said as the system says it (a directory, no permission).
        guard (info.st_mode & S_IFMT) == S_IFREG else { throw .failed(.read, path: path, errno: (info.st_mode & S_IFMT) == S_IFDIR ? EISDIR : EINVAL) }
        let size = Int(info.st_size)
        let prefix = try readAll(fd, path: path, upTo: min(size, BackupFile.firstRecordBytes))
        guard BackupFile.begins(prefix) else { return try BackupFile.read(prefix, path: path) }
        guard lseek(fd, 0, SEEK_SET) == 0 else { throw .failed(.read, path: path, errno: errno) }
        return try BackupFile.read(try readAll(fd, path: path, upTo: size), path: path)
    }

    /// Up to `count` bytes from `fd`'s position (fewer at its end).
    static func readAll(_ fd: Int32, path: String, upTo count: Int) throws(StorageError) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: max(0, count))
        var done = 0
        while done < bytes.count {
            let n = bytes.withUnsafeMutableBytes { read(fd, $0.baseAddress! + done, $0.count - done) }
            if n < 0 && errno == EINTR { continue }
            guard n >= 0 else { throw .failed(.read, path: path, errno: errno) }
            if n == 0 { break }
            done += n
        }
        return Array(bytes.prefix(done))
    }

    /// Prints the verdict; the exit status: 0 a whole backup, 1 refused.
    public static func run(_ path: String) -> Int32 {
        BackupSummary.run("verify") { .init(heading: "backup \(path) is whole:", contents: try load(path)) }
    }
}

import Foundation
import JuiceCore
import JuicePlatform
import JuiceStorage

/// `juice-server verify FILE`: reads a backup without starting a server, and prints what it
/// holds (`BackupSummary`) or why it is refused (the file, the offset, what is wrong).
public enum VerifyCommand {
    /// The backup at `path`, read and judged whole.
    package static func load(_ path: String) throws(StorageError) -> BackupFile.Contents {
        guard let data = FileManager.default.contents(atPath: path) else {
            // Why: no such file, a directory, no permission (said as the system says it).
            let fd = Platform.open(path, O_RDONLY | O_CLOEXEC)
            guard fd >= 0 else { throw .failed(.read, path: path, errno: errno) }
            defer { Platform.close(fd) }
            var info = stat()
            throw .failed(.read, path: path, errno: fstat(fd, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR ? EISDIR : EIO)
        }
        return try BackupFile.read([UInt8](data), path: path)
    }

    /// Prints the verdict; the exit status: 0 a whole backup, 1 refused.
    public static func run(_ path: String) -> Int32 {
        BackupSummary.run("verify") { .init(heading: "backup \(path) is whole:", contents: try load(path)) }
    }
}

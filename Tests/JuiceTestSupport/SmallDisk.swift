import Foundation
import Glibc

/// A real, small file system for full-disk tests: a tmpfs of `megabytes` mounted on a fresh
/// directory, filled to the last byte by a filler file and freed by deleting it. Mounting needs
/// root (CI runs as root): a test that uses it is marked `.requires(.tmpfsMount)`.
public final class SmallDisk {
    public let path: String
    private var filler: String { path + "/filler" }

    public init(megabytes: Int) throws {
        try OutsideTool.tmpfsMount.require()
        path = temporaryDirectory("juice-disk")
        let (status, output) = try Executables.run("/bin/mount", ["-t", "tmpfs", "-o", "size=\(megabytes)m", "tmpfs", path])
        guard status == 0 else {
            removeTemporary(path)
            throw TestError("mount failed (\(status)): \(output)")
        }
    }

    deinit {
        _ = try? Executables.run("/bin/umount", ["-l", path])
        removeTemporary(path)
    }

    /// Fills every free byte with a filler file: writes shrink from 1 MiB to one byte until even
    /// that finds no room (`ENOSPC`).
    public func fill() throws {
        let fd = open(filler, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw TestError("cannot create \(filler): errno \(errno)") }
        defer { Glibc.close(fd) }
        let zeros = [UInt8](repeating: 0, count: 1 << 20)
        var size = zeros.count
        while size > 0 {
            let n = zeros.withUnsafeBytes { write(fd, $0.baseAddress, size) }
            if n > 0 { continue }
            guard n < 0, errno == ENOSPC else { throw TestError("writing \(filler) failed: errno \(errno)") }
            size /= 2
        }
    }

    /// Frees what `fill` took.
    public func free() {
        unlink(filler)
    }

    /// Bytes still free, as statvfs sees them.
    public var freeBytes: Int {
        var s = statvfs()
        guard statvfs(path, &s) == 0 else { return -1 }
        return Int(s.f_bavail) * Int(s.f_frsize)
    }
}

import JuicePlatform

/// `--fill-disk`: the data directory on a small tmpfs of its own, filled to the last byte now
/// and then (the server must go read-only, not lose or double anything, and start again on the
/// full disk) and freed again. Mounting needs root on Linux; elsewhere the run says it skipped.
final class DiskFiller: Sendable {
    let path: String
    private var filler: String { path + "/zz-filler" }

    /// Mounts a tmpfs of `megabytes` on `path` (an empty directory), or says why it cannot.
    static func mount(on path: String, megabytes: Int) -> Result<DiskFiller, BenchError> {
#if os(Linux)
        guard geteuid() == 0 else { return .failure(.fatal("needs root to mount a tmpfs")) }
        let status = runProgram(["mount", "-t", "tmpfs", "-o", "size=\(megabytes)m", "tmpfs", path])
        guard status == 0 else { return .failure(.fatal("mount -t tmpfs failed (status \(status))")) }
        return .success(DiskFiller(path: path))
#else
        return .failure(.fatal("a tmpfs is mounted on Linux only"))
#endif
    }

    private init(path: String) { self.path = path }

    /// Takes every free byte (writes shrink from 1 MiB to one byte until none fits).
    func fill() {
        let fd = open(filler, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o600)
        guard fd >= 0 else { return }
        defer { close(fd) }
        let zeros = [UInt8](repeating: 0, count: 1 << 20)
        var size = zeros.count
        while size > 0 {
            let n = zeros.withUnsafeBytes { write(fd, $0.baseAddress, size) }
            if n > 0 { continue }
            if n < 0 && errno == EINTR { continue }
            size /= 2
        }
    }

    func free() { unlink(filler) }

    func unmount() {
        free()
        _ = runProgram(["umount", "-l", path])
    }

    /// Unmounts, keeping what the server wrote: the tmpfs's files are copied out first (the
    /// filler left behind) and put back in the same directory on the real disk, where a failed
    /// run's report says they are. Call it once the server has stopped, so the copy is the data
    /// it left. Whether the copy succeeded (if not, they stay in `<path>.kept` or are lost).
    @discardableResult
    func unmountKeepingData() -> Bool {
        free()
        let copy = path + ".kept"
        _ = runProgram(["rm", "-rf", "--", copy])
        let copied = mkdir(copy, 0o700) == 0 && runProgram(["cp", "-a", "--", path + "/.", copy]) == 0
        _ = runProgram(["umount", "-l", path])
        // The copy took the tmpfs root's mode (1777); the data directory was 0700.
        guard copied, rmdir(path) == 0, rename(copy, path) == 0, chmod(path, 0o700) == 0 else {
            writeToStandardError("juice-bench chaos: could not copy the data out of the tmpfs at \(path) (see \(copy))\n")
            return false
        }
        writeToStandardError("juice-bench chaos: copied the data out of the tmpfs before unmounting it: \(path)\n")
        return true
    }
}

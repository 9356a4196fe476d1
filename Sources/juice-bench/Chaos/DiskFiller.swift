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
}

/// Runs a program found on PATH to its end; its exit status (-1 if it could not run).
func runProgram(_ argv: [String]) -> Int32 {
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
    posix_spawn_file_actions_adddup2(&actions, 1, 2)
    let args = argv.map { strdup($0) } + [nil]
    defer { args.forEach { free($0) } }
    var pid = pid_t()
    guard posix_spawnp(&pid, argv[0], &actions, nil, args, environ) == 0 else { return -1 }
    var status: Int32 = 0
    while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
    return (status & 0x7f) == 0 ? (status >> 8) & 0xff : -1
}

import Foundation
import Glibc

/// Runs a program to completion with posix_spawn and waitpid, its output in a file.
///
/// Why not Foundation's Process here: on Linux it learns that a child ended when a socket the
/// child inherited closes. A child that leaves a daemon behind hands that socket on, so it is
/// never seen to end and `waitUntilExit` never returns: tmux's first command starts its server
/// that way, and a fresh CI machine hung on it for good. Here the child keeps only stdin
/// (/dev/null), stdout and stderr (one file); `waitpid` needs nothing from it.
public enum Spawn {
    /// Exit status (negative: killed by that signal) and combined output. Killed at `timeout`.
    public static func run(_ path: String, _ arguments: [String], environment: [String: String],
                           directory: String? = nil, timeout: Double) throws -> (status: Int32, output: String) {
        let outputPath = temporaryDirectory("juice-spawn") + "/output"
        defer { removeTemporary(URL(fileURLWithPath: outputPath).deletingLastPathComponent().path) }
        // `cd` in the child's shell: posix_spawn has no portable chdir action.
        let command = directory.map { ["/bin/sh", "-c", "cd \"$0\" && exec \"$@\"", $0, path] } ?? [path]
        let pid = try spawn(command + arguments, environment: environment, outputPath: outputPath)
        let status = wait(pid, timeout: timeout)
        return (status, readText(outputPath))
    }

    private static func spawn(_ argv: [String], environment: [String: String], outputPath: String) throws -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outputPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        // Nothing else of ours goes along: another test's socket must not outlive it in a daemon.
        if let closeFrom {
            _ = closeFrom(&actions, 3)
        } else {
            // Older C libraries: what is open now (a close of one another thread closed meanwhile
            // is ignored by glibc).
            for fd in openDescriptors() where fd > 2 { posix_spawn_file_actions_addclose(&actions, fd) }
        }
        let args = argv.map { strdup($0) } + [nil]
        let env = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (args + env).forEach { free($0) } }
        var pid = pid_t()
        let error = posix_spawn(&pid, argv[0], &actions, nil, args, env)
        guard error == 0 else { throw TestError("cannot run \(argv[0]): \(String(cString: strerror(error)))") }
        return pid
    }

    /// Waits for `pid`, polling so that a child that does not end by `timeout` is killed.
    private static func wait(_ pid: pid_t, timeout: Double) -> Int32 {
        let deadline = Date().addingTimeInterval(timeout)
        var status: Int32 = 0
        while waitpid(pid, &status, WNOHANG) == 0 {
            if Date() >= deadline {
                kill(pid, SIGKILL)
                while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
                break
            }
            usleep(5_000)
        }
        let killedBy = status & 0x7f
        return killedBy == 0 ? (status >> 8) & 0xff : -killedBy
    }

    /// glibc 2.34's posix_spawn_file_actions_addclosefrom_np, looked up at run time (Swift's Glibc
    /// module does not declare GNU extensions).
    private typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
    private static let closeFrom: CloseFrom? = dlsym(dlopen(nil, RTLD_NOW), "posix_spawn_file_actions_addclosefrom_np")
        .map { unsafeBitCast($0, to: CloseFrom.self) }

    private static func openDescriptors() -> [Int32] {
        ((try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []).compactMap { Int32($0) }
    }
}

import Foundation
import Glibc

/// How every child of a test starts: posix_spawn of /bin/sh, which opens the child's files and
/// then becomes the program (`exec`, same pid). `ChildProcess` is the one user.
///
/// Why not Foundation's Process: on Linux it learns that a child ended when a socket the child
/// inherited closes. A child that leaves a daemon behind hands that socket on, so it is never
/// seen to end and `waitUntilExit` never returns: tmux's first command starts its server that
/// way, and a fresh CI machine hung on it for good. Here the child keeps only its stdin, stdout
/// and stderr; `waitpid` needs nothing from it.
///
/// Why the shell opens the files rather than posix_spawn's file actions: glibc's posix_spawn
/// waits until the child has exec'd, so a FIFO opened in the actions (a test's stdin, or a
/// stderr nobody reads yet) would block the test itself until its other end opens.
enum Spawn {
    /// Where the child's standard descriptors go. `stderr` nil: with stdout.
    struct Files {
        var stdin: String? = nil
        var stdout: String
        var stderr: String? = nil
        /// Append (a restarted server keeps its log) rather than truncate.
        var append = false
    }

    /// Starts `path` with `arguments`, after `shellPrefix` (e.g. `ulimit -n 200`) in its shell.
    static func start(_ path: String, _ arguments: [String], environment: [String: String], files: Files,
                      workingDirectory: String? = nil, shellPrefix: String? = nil) throws -> pid_t {
        let quote = Executables.shellQuoted
        let into = files.append ? " >>" : " >"
        var script = "exec \"$0\" \"$@\" <" + quote(files.stdin ?? "/dev/null") + into + quote(files.stdout)
        script += files.stderr.map { " 2>" + quote($0) } ?? " 2>&1"
        if let workingDirectory { script = "cd " + quote(workingDirectory) + " && " + script }
        if let shellPrefix { script = shellPrefix + "; " + script }
        return try spawn(["/bin/sh", "-c", script, path] + arguments, environment: environment)
    }

    private static func spawn(_ argv: [String], environment: [String: String]) throws -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        // The shell's own descriptors, until it redirects them: a failed redirect exits 2.
        for fd: Int32 in [0, 1, 2] { posix_spawn_file_actions_addopen(&actions, fd, "/dev/null", O_RDWR, 0) }
        // Nothing else of ours goes along: another test's socket must not outlive it in a daemon.
        if let closeFrom {
            _ = closeFrom(&actions, 3)
        } else {
            // Older C libraries: what is open now (a close of one another thread closed meanwhile
            // is ignored by glibc).
            for fd in openDescriptors() where fd > 2 { posix_spawn_file_actions_addclose(&actions, fd) }
        }
        // A clean signal state: the test thread that spawns may block SIGTERM, and the test
        // process ignores SIGPIPE; both would pass to the child through exec.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t(), all = sigset_t()
        sigemptyset(&none)
        sigfillset(&all)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

        let args = argv.map { strdup($0) } + [nil]
        let env = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (args + env).forEach { free($0) } }
        var pid = pid_t()
        let error = posix_spawn(&pid, argv[0], &actions, &attributes, args, env)
        guard error == 0 else { throw TestError("cannot run \(argv[0]): \(String(cString: strerror(error)))") }
        return pid
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

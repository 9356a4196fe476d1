import JuicePlatform

/// The programs a chaos run starts (the server, `juice-server backup` and `restore`, `cp`,
/// `umount`): stdin from /dev/null, stdout and stderr together into one file.
enum ChildProgram {
    /// posix_spawn's error number.
    struct SpawnFailure: Error { let code: Int32 }

    /// Starts `argv` (a path, or a name found on PATH) with its output in `output` (appended,
    /// or the file emptied first), and `environment` entries replacing the inherited ones of the
    /// same names. Its pid, or the error posix_spawn gave.
    static func start(_ argv: [String], output: String = "/dev/null", append: Bool = false, environment: [String] = []) -> Result<pid_t, SpawnFailure> {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | (append ? O_APPEND : O_TRUNC), 0o600)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        let args = argv.map { strdup($0) } + [nil]
        defer { args.forEach { free($0) } }
        let names = Set(environment.map { $0.prefix { $0 != "=" } })
        var inherited: [String] = []
        var at = environ
        while let entry = at.pointee {
            let text = String(cString: entry)
            if !names.contains(text.prefix { $0 != "=" }) { inherited.append(text) }
            at += 1
        }
        let envp = (inherited + environment).map { strdup($0) } + [nil]
        defer { envp.forEach { free($0) } }
        var pid = pid_t()
        let error = posix_spawnp(&pid, argv[0], &actions, nil, args, envp)
        return error == 0 ? .success(pid) : .failure(SpawnFailure(code: error))
    }

    /// Waits for `pid` to end: its exit status, or -1 when a signal ended it.
    static func wait(_ pid: pid_t) -> Int32 {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        return (status & 0x7f) == 0 ? (status >> 8) & 0xff : -1
    }
}

/// Runs a program to its end, its output discarded; its exit status (-1 if it could not run).
func runProgram(_ argv: [String]) -> Int32 {
    guard case .success(let pid) = ChildProgram.start(argv) else { return -1 }
    return ChildProgram.wait(pid)
}

/// Runs `argv` to its end with stdout and stderr in `output`: its exit status, and its last line.
func runCapturing(_ argv: [String], output: String) -> (Int32, String) {
    guard case .success(let pid) = ChildProgram.start(argv, output: output) else { return (-1, "cannot run \(argv[0])") }
    let status = ChildProgram.wait(pid)
    return (status, readFile(output).split(separator: "\n").last.map(String.init) ?? "")
}

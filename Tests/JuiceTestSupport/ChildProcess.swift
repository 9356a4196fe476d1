import Foundation
import Glibc

/// A program a test runs, to completion (`run`) or alongside it (a server, a board, a curl that
/// streams), with its output in files: no pipes to drain, no threads. Started by `Spawn`; ended
/// by us alone (`waitpid` on its pid), so until we have seen it end its pid cannot be reused
/// and a signal to it never reaches another process. Killed and reaped on deinit.
public final class ChildProcess: @unchecked Sendable {
    // @unchecked: the exit status is guarded by `lock`; the rest never changes.
    public let pid: pid_t
    public let stdoutPath: String
    /// The same as `stdoutPath` when stderr goes with stdout.
    public let stderrPath: String
    private let lock = NSLock()
    private var status: Int32? = nil

    /// Starts `path` with its output in `stdoutPath` (and `stderrPath`, else the same file),
    /// appended to with `append`. `stdinPath` (e.g. a FIFO the test writes to) becomes its
    /// stdin, else /dev/null. The environment is ours plus `extra` (see `Executables.environment`).
    public init(_ path: String, _ arguments: [String], environment extra: [String: String] = [:],
                stdinPath: String? = nil, stdoutPath: String, stderrPath: String? = nil, append: Bool = false,
                workingDirectory: String? = nil, shellPrefix: String? = nil) throws {
        self.stdoutPath = stdoutPath
        self.stderrPath = stderrPath ?? stdoutPath
        let files = Spawn.Files(stdin: stdinPath, stdout: stdoutPath, stderr: stderrPath, append: append)
        pid = try Spawn.start(path, arguments, environment: Executables.environment(extra), files: files,
                              workingDirectory: workingDirectory, shellPrefix: shellPrefix)
    }

    /// Starts `path` with its stdout and stderr in two new files in `directory`.
    public convenience init(_ path: String, _ arguments: [String], directory: String, environment extra: [String: String] = [:],
                            stdinPath: String? = nil) throws {
        let name = directory + "/\(URL(fileURLWithPath: path).lastPathComponent)-\(UUID().uuidString.prefix(8))"
        try self.init(path, arguments, environment: extra, stdinPath: stdinPath, stdoutPath: name + ".out", stderrPath: name + ".err")
    }

    /// Runs a program to completion (flag checks, short runs): exit status (negative: killed by
    /// that signal) and stdout and stderr together. A run that should end must not hang the
    /// suite if it does not: it is killed at `timeout`.
    public static func run(_ path: String, _ arguments: [String], environment extra: [String: String] = [:],
                           stdinPath: String? = nil, workingDirectory: String? = nil,
                           timeout: Double = testDeadline) throws -> (status: Int32, output: String) {
        let directory = temporaryDirectory("juice-child")
        defer { removeTemporary(directory) }
        let child = try ChildProcess(path, arguments, environment: extra, stdinPath: stdinPath, stdoutPath: directory + "/output",
                                     workingDirectory: workingDirectory)
        let status = child.waitForExit(timeout: timeout) ?? child.killNow()
        return (status, child.output)
    }

    public var output: String { readText(stdoutPath) }
    public var errors: String { readText(stderrPath) }

    /// Its exit status once it has ended (negative: killed by that signal; Int32.min: unknown);
    /// nil while it runs.
    public var exitStatus: Int32? { reap(blocking: false) }

    public var isRunning: Bool { exitStatus == nil }

    /// Waits for it to end: its exit status, or nil if it still runs at `timeout`.
    @discardableResult
    public func waitForExit(timeout: Double = testDeadline) -> Int32? {
        _ = eventually(timeout: timeout) { exitStatus != nil }  // giving up is the nil returned
        return exitStatus
    }

    /// Sends `number` while it runs (it is not yet reaped, so the pid is still its own).
    public func signal(_ number: Int32) {
        lock.lock()
        defer { lock.unlock() }
        if status == nil { kill(pid, number) }
    }

    /// SIGKILL now, and wait for it: for a program with nothing to finish (a streaming curl).
    @discardableResult
    public func killNow() -> Int32 {
        signal(SIGKILL)
        return reap(blocking: true) ?? -SIGKILL
    }

    /// SIGTERM, then wait for the exit (SIGKILL if it does not come): its exit status.
    @discardableResult
    public func stop() -> Int32 {
        signal(SIGTERM)
        return waitForExit() ?? killNow()
    }

    /// Collects the exit status once (waitpid), under the lock so that two callers cannot both.
    private func reap(blocking: Bool) -> Int32? {
        lock.lock()
        defer { lock.unlock() }
        if let status { return status }
        var raw: Int32 = 0
        var result: pid_t
        repeat { result = waitpid(pid, &raw, blocking ? 0 : WNOHANG) } while result == -1 && errno == EINTR
        // -1: not our child any more (reaped behind our back): ended, its status lost.
        if result == -1 { status = Int32.min }
        guard result == pid else { return status }
        let killedBy = raw & 0x7f
        status = killedBy == 0 ? (raw >> 8) & 0xff : -killedBy
        return status
    }

    deinit {
        killNow()  // no process and no zombie left behind
    }
}

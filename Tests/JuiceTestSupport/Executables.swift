import Foundation
import Glibc

/// The package's built executables (juice-server, juice-board, juice-bench): SwiftPM builds them
/// into the same directory as the test bundle.
public enum Executables {
    public static let directory: URL = {
        let exe = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        var dir = URL(fileURLWithPath: exe).deletingLastPathComponent()
        if dir.lastPathComponent == "MacOS" || dir.path.contains(".xctest/") {
            while dir.pathExtension != "xctest" && dir.path != "/" { dir = dir.deletingLastPathComponent() }
            dir = dir.deletingLastPathComponent()
        }
        return dir
    }()

    public static func path(_ name: String) -> String { directory.appendingPathComponent(name).path }

    /// `text` as one word for /bin/sh.
    public static func shellQuoted(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }

    /// The environment a child runs with: ours, without a manager token a developer may have
    /// exported, plus `extra`.
    public static func environment(_ extra: [String: String] = [:]) -> [String: String] {
        var env = ProcessInfo.processInfo.environment
        env.removeValue(forKey: "JUICE_MANAGER_TOKEN")
        env.merge(extra) { $1 }
        return env
    }

    /// Runs a program to completion (flag checks, short runs): exit status and combined output.
    /// A run that should end must not hang the suite if it does not: it is killed after
    /// `testDeadline`. (Spawned with `Spawn`, not Foundation's Process: see there why.)
    public static func run(_ path: String, _ arguments: [String], environment extra: [String: String] = [:],
                           directory: String? = nil) throws -> (status: Int32, output: String) {
        try Spawn.run(path, arguments, environment: environment(extra), directory: directory, timeout: testDeadline)
    }
}

/// A child process with its stdout and stderr going to files (no pipes to drain, no threads).
public final class ChildProcess: @unchecked Sendable {
    // @unchecked: used from one test at a time.
    public let process = Process()
    public let stdoutPath: String
    public let stderrPath: String

    /// `stdinPath` (e.g. a FIFO the test writes to) becomes the child's stdin; else /dev/null.
    public init(_ path: String, _ arguments: [String], directory: String, environment extra: [String: String] = [:],
                stdinPath: String? = nil) throws {
        stdoutPath = directory + "/\(URL(fileURLWithPath: path).lastPathComponent)-\(UUID().uuidString.prefix(8)).out"
        stderrPath = stdoutPath.replacingOccurrences(of: ".out", with: ".err")
        _ = FileManager.default.createFile(atPath: stdoutPath, contents: nil)
        _ = FileManager.default.createFile(atPath: stderrPath, contents: nil)
        // The shell opens the output files and then becomes the program (exec, same pid): no
        // descriptor of ours is handed to Process, as `ExecutableServer.prepare` explains.
        let command = ([path] + arguments).map(Executables.shellQuoted).joined(separator: " ")
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        let input = stdinPath.map { " <" + Executables.shellQuoted($0) } ?? ""
        process.arguments = ["-c", "exec \(command)\(input) >\(Executables.shellQuoted(stdoutPath)) 2>\(Executables.shellQuoted(stderrPath))"]
        process.environment = Executables.environment(extra)
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
    }

    /// SIGKILL now, and wait for it: for a program with nothing to finish (a streaming curl).
    /// `stop()`'s SIGTERM is not enough there: a child inherits the signal mask of the test
    /// thread that started it, where SIGTERM is blocked, and only a program that unblocks it
    /// (juice-server's and Caddy's signal handling do) sees it.
    public func killNow() {
        guard process.isRunning else { return }
        Glibc.kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    public var output: String { readText(stdoutPath) }
    public var errors: String { readText(stderrPath) }

    /// SIGTERM, then wait for the exit (SIGKILL if it does not come).
    public func stop() {
        guard process.isRunning else { return }
        kill(process.processIdentifier, SIGTERM)
        if !eventually({ !process.isRunning }) {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }

    deinit {
        guard process.isRunning else { return }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()  // no zombie left behind
    }
}

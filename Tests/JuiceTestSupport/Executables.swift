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

    /// Runs a program to completion (flag checks, short runs): exit status and combined output,
    /// `directory` its working directory. Killed after `testDeadline` (see `ChildProcess.run`).
    public static func run(_ path: String, _ arguments: [String], environment extra: [String: String] = [:],
                           directory: String? = nil) throws -> (status: Int32, output: String) {
        try ChildProcess.run(path, arguments, environment: extra, workingDirectory: directory)
    }
}

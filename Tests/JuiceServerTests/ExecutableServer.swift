import Foundation
import Glibc
import Testing

/// The built `juice-server` executable run as a separate process, the way a user runs it.
final class ExecutableServer: @unchecked Sendable {
    // @unchecked: owned by one test at a time.
    let process = Process()
    let logPath: String
    let port: Int

    /// The binary next to the test bundle (SwiftPM builds both into the same directory).
    static var binary: String {
        let exe = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        var dir = URL(fileURLWithPath: exe).deletingLastPathComponent()
        if dir.lastPathComponent == "MacOS" || dir.path.contains(".xctest/") {
            while dir.pathExtension != "xctest" && dir.path != "/" { dir = dir.deletingLastPathComponent() }
            dir = dir.deletingLastPathComponent()
        }
        return dir.appendingPathComponent("juice-server").path
    }

    /// Starts it with `arguments` (plus `--port 0` unless given) and waits for its listening line.
    init(_ arguments: [String], environment: [String: String] = [:], logPath: String? = nil) throws {
        self.logPath = logPath ?? temporaryDirectory("juice-log") + "/server.log"
        _ = FileManager.default.createFile(atPath: self.logPath, contents: nil)
        let args = arguments.contains("--port") ? arguments : arguments + ["--port", "0"]
        port = try ExecutableServer.launch(process, arguments: args, logPath: self.logPath, environment: environment)
    }

    /// Starts `process` (see `prepare`) and waits for its listening line; returns the port.
    static func launch(_ process: Process, arguments: [String], logPath: String, environment: [String: String],
                       shellPrefix: String? = nil) throws -> Int {
        prepare(process, arguments: arguments, logPath: logPath, environment: environment, shellPrefix: shellPrefix)
        try process.run()
        let log = { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }
        let found = eventually(timeout: 60) { !process.isRunning || listeningPort(in: log()) != nil }
        guard found, process.isRunning, let port = listeningPort(in: log()) else {
            throw TestError("juice-server did not start: \(log())")
        }
        return port
    }

    /// The port from the latest "juice-server listening on host:port" line.
    static func listeningPort(in text: String) -> Int? {
        guard let range = text.range(of: "listening on ", options: .backwards) else { return nil }
        let rest = text[range.upperBound...].prefix { $0 != "\n" }
        guard let colon = rest.lastIndex(of: ":") else { return nil }
        return Int(rest[rest.index(after: colon)...])
    }

    func log() -> String {
        (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? ""
    }

    func client(readGreeting: Bool = true) throws -> LineClient {
        try LineClient(port: port, readGreeting: readGreeting)
    }

    func signal(_ number: Int32) {
        kill(process.processIdentifier, number)
    }

    /// Waits for the process to end; its exit status, or nil if it is still running.
    func waitForExit(timeout: Double = 30) -> Int32? {
        _ = eventually(timeout: timeout) { !process.isRunning }
        return process.isRunning ? nil : process.terminationStatus
    }

    func kill9() {
        signal(SIGKILL)
        process.waitUntilExit()
    }

    deinit {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }

    /// Sets `process` up to run the binary with its output appended to `logPath`. The child's
    /// shell opens the log itself: no descriptor of ours is handed to Process, whose ownership of
    /// such handles would otherwise be shared with FileHandle (a double close in a test process
    /// can hit another test's socket).
    static func prepare(_ process: Process, arguments: [String], logPath: String, environment: [String: String],
                        shellPrefix: String? = nil) {
        let quoted = ([binary] + arguments).map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }
        let log = "'" + logPath.replacingOccurrences(of: "'", with: "'\\''") + "'"
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", (shellPrefix.map { $0 + "; " } ?? "") + "exec " + quoted.joined(separator: " ") + " >>" + log + " 2>&1"]
        var env = ProcessInfo.processInfo.environment
        env.removeValue(forKey: "JUICE_MANAGER_TOKEN")
        env.merge(environment) { $1 }
        process.environment = env
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
    }

    /// Runs the binary to completion (for flag checks): exit status and combined output.
    static func run(_ arguments: [String], environment: [String: String] = [:], directory: String? = nil) throws -> (Int32, String) {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: binary)
        p.arguments = arguments
        var env = ProcessInfo.processInfo.environment
        env.removeValue(forKey: "JUICE_MANAGER_TOKEN")
        env.merge(environment) { $1 }
        p.environment = env
        if let directory { p.currentDirectoryURL = URL(fileURLWithPath: directory) }
        let out = Pipe()
        p.standardOutput = out
        p.standardError = out
        p.standardInput = FileHandle.nullDevice
        try p.run()
        // A run that should end must not hang the suite if it does not: kill it after a minute.
        let pid = p.processIdentifier
        let watchdog = DispatchWorkItem { kill(pid, SIGKILL) }
        DispatchQueue.global().asyncAfter(deadline: .now() + 60, execute: watchdog)
        let data = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        watchdog.cancel()
        return (p.terminationStatus, String(decoding: data, as: UTF8.self))
    }
}

import Foundation
import Glibc
import Testing

/// The built `juice-server` executable run as a separate process, the way a user runs it, with
/// its output in a log file: the one wrapper for a server process in every test target.
public final class ExecutableServer: @unchecked Sendable {
    // @unchecked: owned by one test at a time.
    public let child: ChildProcess
    public let logPath: String
    public let port: Int
    private let ownsLogDirectory: Bool
    public var pid: Int32 { child.pid }

    /// The binary next to the test bundle.
    public static var binary: String { Executables.path("juice-server") }

    /// Starts it with `arguments` (plus `--port 0` and `--http-port 0` unless given) and waits for its listening line.
    /// Its output is appended to `logPath` (a restart may reuse one). `shellPrefix` runs first
    /// in the child's shell (e.g. `ulimit -n 200`). `stderrPath` sends stderr (the log lines)
    /// there instead of into the log file with stdout (e.g. a FIFO).
    public init(_ arguments: [String], environment: [String: String] = [:], logPath: String? = nil,
                shellPrefix: String? = nil, stderrPath: String? = nil) throws {
        ownsLogDirectory = logPath == nil
        self.logPath = logPath ?? temporaryDirectory("juice-log") + "/server.log"
        var args = arguments.contains("--port") ? arguments : arguments + ["--port", "0"]
        // Never the fixed default HTTP port: tests run side by side.
        if !args.contains("--http-port") && !args.contains("--no-http") { args += ["--http-port", "0"] }
        child = try ChildProcess(Self.binary, args, environment: environment, stdoutPath: self.logPath, stderrPath: stderrPath,
                                 append: true, shellPrefix: shellPrefix)
        let log = self.logPath, child = child
        let found = eventually { !child.isRunning || Self.listeningPort(in: readText(log)) != nil }
        guard found, child.isRunning, let port = Self.listeningPort(in: readText(log)) else {
            throw TestError("juice-server did not start: \(readText(log))")
        }
        self.port = port
    }

    /// The port from the latest line the server prints once it listens,
    /// "juice-server listening on <host>:<port>" (main.swift): a line of its own, so it is
    /// matched at the start of a line (a log line quoting a client cannot fake it), and the
    /// latest one wins (a restart may append to the same log). The host may be IPv6 ("::1"),
    /// so the port is what follows the last colon.
    public static func listeningPort(in text: String) -> Int? {
        let prefix = "juice-server listening on "
        for line in text.split(separator: "\n").reversed() where line.hasPrefix(prefix) {
            guard let colon = line.lastIndex(of: ":") else { continue }
            return Int(line[line.index(after: colon)...].trimmingCharacters(in: .whitespacesAndNewlines))
        }
        return nil
    }

    /// The HTTP port from the latest "juice-server board on http://<host>:<port>/" line.
    public static func boardPort(in text: String) -> Int? {
        let prefix = "juice-server board on http://"
        for line in text.split(separator: "\n").reversed() where line.hasPrefix(prefix) {
            guard let colon = line.lastIndex(of: ":") else { continue }
            return Int(line[line.index(after: colon)...].prefix { $0.isNumber })
        }
        return nil
    }

    /// The HTTP side's port (printed right after the listening line).
    public var httpPort: Int {
        // Giving up is reported as port -1, which every connect to it then fails on.
        _ = eventually { ExecutableServer.boardPort(in: log()) != nil }
        return ExecutableServer.boardPort(in: log()) ?? -1
    }

    public func log() -> String { readText(logPath) }

    /// Whether the log shows `text` within `timeout`. Log lines are written by the server's own
    /// log thread, a moment after what they report: a check right after an action must wait.
    /// (A check that a line is absent should stop the server first: its exit flushes the log.)
    public func logShows(_ text: String, timeout: Double = testDeadline) -> Bool {
        eventually(timeout: timeout) { log().contains(text) }
    }

    /// How many times the log shows `text`, once it shows it at least `atLeast` times (or at the
    /// deadline): for lines that must appear exactly so many times.
    public func logCount(_ text: String, atLeast: Int) -> Int {
        let count = { self.log().components(separatedBy: text).count - 1 }
        _ = eventually { count() >= atLeast }   // the count is checked by the caller
        return count()
    }

    public var logLineCount: Int { log().split(separator: "\n").count }

    public var isRunning: Bool { child.isRunning }

    /// A client that has read the greeting (see `LineClient`).
    public func client(readGreeting: Bool = true) throws -> LineClient {
        try LineClient(port: port, readGreeting: readGreeting)
    }

    /// A raw connection for hostile or slow clients (see `LineClient.peer`).
    public func peer(receiveBuffer: Int? = nil) throws -> LineClient {
        try LineClient.peer(port: port, receiveBuffer: receiveBuffer)
    }

    /// Sends a signal while the process runs (never to a pid that may have been reused).
    public func signal(_ number: Int32) { child.signal(number) }

    /// Waits for the process to end; its exit status (negative: killed by that signal), or nil
    /// if it is still running at `timeout`.
    public func waitForExit(timeout: Double = testDeadline) -> Int32? { child.waitForExit(timeout: timeout) }

    /// SIGTERM and wait for the exit: its status, or nil if the server is still running at the
    /// deadline. A test that expects a clean shutdown checks `terminate() == 0`.
    public func terminate() -> Int32? {
        signal(SIGTERM)
        return waitForExit()
    }

    /// Starts the server again on a port a stopped one used (clients reconnect to it), retrying
    /// while the old socket lets go of the port.
    public static func restart(_ arguments: [String], port: Int, environment: [String: String] = [:]) throws -> ExecutableServer {
        var server: ExecutableServer? = nil
        var lastError: Error? = nil
        _ = eventually {  // giving up throws lastError below
            do { server = try ExecutableServer(arguments + ["--port", String(port)], environment: environment) } catch { lastError = error }
            return server != nil
        }
        guard let server else { throw lastError ?? TestError("server did not restart on \(port)") }
        return server
    }

    /// SIGTERM and wait for the exit; SIGKILL if it does not come.
    public func stop() { child.stop() }

    public func kill9() { child.killNow() }

    public var rss: Int { reading("VmRSS") { ProcStat.status(pid, "VmRSS") } ?? 0 }
    public var peakRSS: Int { reading("VmHWM") { ProcStat.status(pid, "VmHWM") } ?? 0 }
    public var cpuSeconds: Double { reading("CPU time") { ProcStat.cpuSeconds(pid) } ?? 0 }

    /// A /proc reading of the running server, tried again while it fails. It can fail for a
    /// moment while the server is well (this process short of descriptors: a suite beside this
    /// one holds thousands of sockets). Read as 0, a failed baseline made a memory check's
    /// growth the whole RSS (a false failure), a failed later reading hid any growth, and two
    /// failed CPU readings looked like an idle server; so a reading that never succeeds is a
    /// failure of the test, not a 0.
    private func reading<T>(_ what: String, _ read: () -> T?) -> T? {
        var value: T? = nil
        _ = eventually { value = read(); return value != nil || !isRunning }  // giving up is recorded below
        if value == nil { Issue.record("cannot read the \(what) of juice-server \(pid) from /proc (running: \(isRunning))") }
        return value
    }

    deinit {
        child.killNow()  // before its log directory goes
        if ownsLogDirectory { removeTemporary(URL(fileURLWithPath: logPath).deletingLastPathComponent().path) }
    }

    /// Runs the binary to completion (for flag checks): exit status and combined output.
    public static func run(_ arguments: [String], environment: [String: String] = [:], directory: String? = nil) throws -> (Int32, String) {
        let (status, output) = try Executables.run(binary, arguments, environment: environment, directory: directory)
        return (status, output)
    }
}

/// Waits (up to `testDeadline`) until the server has used no CPU for 300 ms and none of its
/// threads is runnable: it has taken all the input it was sent, so a stuck client's replies are
/// queued, not still being produced. CPU time alone also stands still while a server with work
/// left waits 300 ms for a core on a busy machine; such a thread is runnable (state R), an idle
/// one sleeps.
public func waitForIdleCPU(_ server: ExecutableServer) {
    let deadline = Date().addingTimeInterval(testDeadline)
    var last = server.cpuSeconds
    while Date() < deadline {
        usleep(300_000)
        let now = server.cpuSeconds
        if now == last && ProcStat.runnableThreads(server.pid) == 0 { return }
        last = now
    }
}

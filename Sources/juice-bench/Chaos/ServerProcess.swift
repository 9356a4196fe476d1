import JuicePlatform
import Synchronization

/// The juice-server under test, run as a child process: started, SIGKILLed and started again on
/// the same data directory and the same ports, as a crash and a supervisor's restart would.
/// Only the conductor reaps it (`waitpid`); a till may only `killNow`, between writing an order
/// and reading its answer. A pid is never signalled after it was reaped, so it cannot hit a
/// reused pid.
final class ServerProcess: Sendable {
    let binary: String
    let arguments: [String]
    let logPath: String
    private struct State {
        var pid: pid_t = 0
        var killRequested = false
        var linePort = 0
        var httpPort = 0
        /// The highest VmHWM (peak resident set, KiB) read from any start of the server.
        var peakRSSKiB = 0
    }
    private let state = Mutex(State())

    /// Set for the server only (`NAME=value`), e.g. its manager token: an environment variable,
    /// since a token on the command line would show in `ps`.
    let environment: [String]

    /// `arguments` are the server's own flags except `--port` and `--http-port`, which this
    /// adds: `ports` at the first start (0: a free one), then the ports that start got.
    init(binary: String, arguments: [String], logPath: String, ports: (line: Int, http: Int) = (0, 0), environment: [String] = []) {
        self.binary = binary
        self.arguments = arguments
        self.logPath = logPath
        self.environment = environment
        state.withLock { $0.linePort = ports.line; $0.httpPort = ports.http }
    }

    var ports: (line: Int, http: Int) { state.withLock { ($0.linePort, $0.httpPort) } }
    var pid: pid_t { state.withLock { $0.pid } }

    /// Starts the server and waits until it listens (its start lines are in the log). The
    /// first start picks free ports; a restart asks for the same ones, and tries again while
    /// the kernel still holds them. Throws with the log's tail when it will not start.
    func start(timeout: Double) throws(BenchError) {
        let deadline = monotonicNow() + nanos(seconds: timeout)
        var lastFailure = ""
        while monotonicNow() < deadline {
            let (line, http) = ports
            let offset = fileSize(logPath)
            let pid = try spawn(arguments + ["--port", String(line), "--http-port", String(http)])
            state.withLock { $0.pid = pid; $0.killRequested = false }
            while monotonicNow() < deadline {
                let log = readFile(logPath, from: offset)
                if let found = ServerLog.ports(in: log) {
                    state.withLock { $0.linePort = found.line; $0.httpPort = found.http }
                    return
                }
                if let status = reapIfExited() {
                    lastFailure = "exit status \(status): " + String(log.suffix(600))
                    break
                }
                pause(seconds: 0.01)
            }
            pause(seconds: 0.1)
        }
        throw BenchError.fatal("juice-server (\(binary)) did not start listening within \(Int(timeout)) s: \(lastFailure)")
    }

    /// SIGKILL, once per start; false when a kill was already sent (or nothing runs).
    @discardableResult
    func killNow() -> Bool {
        state.withLock { state in
            guard state.pid > 0, !state.killRequested else { return false }
            state.killRequested = true
            kill(state.pid, SIGKILL)
            return true
        }
    }

    var killRequested: Bool { state.withLock { $0.killRequested } }

    /// Reads the running server's peak resident set (`VmHWM` in /proc/<pid>/status, Linux) and
    /// keeps the highest over every start. Sampled by the run a few times a second: a kill can
    /// take a process's last moments with it, so this is a lower bound of the true peak.
    func sampleRSS() {
        let pid = self.pid
        guard pid > 0 else { return }
        let status = readFile("/proc/\(pid)/status")
        guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
              let kib = Int(line.dropFirst(6).filter(\.isNumber)) else { return }
        state.withLock { $0.peakRSSKiB = max($0.peakRSSKiB, kib) }
    }

    /// The highest peak resident set seen (KiB; 0: none read, e.g. not Linux).
    var peakRSSKiB: Int { state.withLock { $0.peakRSSKiB } }

    /// Waits for the process to end (after `killNow` or `terminate`); its wait status.
    @discardableResult
    func reap() -> Int32 {
        let pid = self.pid
        guard pid > 0 else { return 0 }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        state.withLock { $0.pid = 0 }
        return status
    }

    /// The wait status if the process ended by itself (not killed by us): a crash or an exit.
    func reapIfExited() -> Int32? {
        let pid = self.pid
        guard pid > 0 else { return nil }
        var status: Int32 = 0
        guard waitpid(pid, &status, WNOHANG) == pid else { return nil }
        state.withLock { $0.pid = 0 }
        return status
    }

    /// SIGTERM at the end of a run, then SIGKILL if it does not stop in 10 s.
    func terminate() {
        sampleRSS()
        let pid = self.pid
        guard pid > 0 else { return }
        kill(pid, SIGTERM)
        let deadline = monotonicNow() + nanos(seconds: 10)
        while monotonicNow() < deadline {
            if reapIfExited() != nil { return }
            pause(seconds: 0.02)
        }
        killNow()
        reap()
    }

    private func spawn(_ flags: [String]) throws(BenchError) -> pid_t {
        switch ChildProgram.start([binary] + flags, output: logPath, append: true, environment: environment) {
        case .success(let pid): return pid
        case .failure(let error): throw BenchError.fatal("cannot run \(binary): \(errnoDescription(error.code))")
        }
    }
}

/// Reading the server's start lines and log, for the ports it got and a failure's reason.
enum ServerLog {
    /// The ports from "juice-server listening on <host>:<port>" and "juice-server board on
    /// http://<host>:<port>/" (written once it listens), each at the start of a line, so a
    /// logged client line cannot fake them.
    static func ports(in log: String) -> (line: Int, http: Int)? {
        var line: Int?, http: Int?
        for text in log.split(separator: "\n") {
            if text.hasPrefix("juice-server listening on "), let colon = text.lastIndex(of: ":") {
                line = Int(text[text.index(after: colon)...])
            } else if text.hasPrefix("juice-server board on http://"), let colon = text.lastIndex(of: ":") {
                http = Int(text[text.index(after: colon)...].prefix { $0.isNumber })
            }
        }
        guard let line, let http else { return nil }
        return (line, http)
    }
}

func fileSize(_ path: String) -> Int {
    var info = stat()
    return stat(path, &info) == 0 ? Int(info.st_size) : 0
}

/// A text file's contents from `offset` on (empty if it cannot be read).
func readFile(_ path: String, from offset: Int = 0) -> String {
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { return "" }
    defer { close(fd) }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 65536)
    var at = offset
    while true {
        let n = chunk.withUnsafeMutableBytes { pread(fd, $0.baseAddress, 65536, off_t(at)) }
        guard n > 0 else { break }
        bytes.append(contentsOf: chunk[..<n])
        at += n
    }
    return String(decoding: bytes, as: UTF8.self)
}

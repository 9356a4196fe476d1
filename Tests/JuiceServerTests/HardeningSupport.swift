import Foundation
import JuicePlatform
import Testing

// Helpers for HardeningTests: a raw socket peer (resets, raw bytes, small buffers), the server
// binary run with a shell prefix (ulimit), /proc readings (RSS, CPU), a seeded RNG and a locked box.

/// A value shared between test threads, behind a lock.
final class Locked<Value>: @unchecked Sendable {
    // @unchecked: every access goes through `lock`.
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) { self.value = value }

    func read<T>(_ body: (Value) -> T) -> T {
        lock.lock()
        defer { lock.unlock() }
        return body(value)
    }

    func update<T>(_ body: (inout Value) -> T) -> T {
        lock.lock()
        defer { lock.unlock() }
        return body(&value)
    }

    var get: Value { read { $0 } }
}

/// SplitMix64: a small deterministic generator, so a failing fuzz run can be replayed.
struct SeededRNG: RandomNumberGenerator {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// What a read on a `Peer` found.
enum PeerRead: Equatable {
    case line(String)
    case closed
    case timeout
}

/// A TCP client over a raw fd, explicitly closed (or reset) by the test. Reads keep every byte
/// received in `received`, so a test can check what the server sent byte for byte.
// @unchecked: one thread reads, at most one other thread sends; the buffers are the reader's.
final class Peer: @unchecked Sendable {
    private(set) var fd: Int32
    private var buffer: [UInt8] = []
    private(set) var received: [UInt8] = []
    var keepReceived = false
    private(set) var sawEOF = false

    /// Connects to 127.0.0.1:port. `receiveBuffer` shrinks SO_RCVBUF before connecting (a slow
    /// consumer whose kernel buffer fills at once).
    init(port: Int, receiveBuffer: Int? = nil, sendTimeout: Int = 30) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw TestError("socket failed: errno \(errno)") }
        if let size = receiveBuffer {
            var v = Int32(size)
            setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &v, socklen_t(MemoryLayout<Int32>.size))
        }
        var tv = timeval(tv_sec: sendTimeout, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port)).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard result == 0 else {
            let code = errno
            Glibc.close(fd)
            fd = -1
            throw TestError("connect to \(port) failed: errno \(code)")
        }
    }

    deinit { close() }

    /// The local port, as the server logs it ("127.0.0.1:<port>").
    var localPort: Int {
        var address = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// Sends everything; false once the connection fails (reset, closed, send timeout).
    @discardableResult
    func send(_ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress! + offset, bytes.count - offset, Int32(MSG_NOSIGNAL)) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { return false }
            offset += n
        }
        return true
    }

    @discardableResult
    func send(_ text: String) -> Bool { send(Array(text.utf8)) }

    /// The next line (without LF or CRLF), or `.closed` at EOF/reset, or `.timeout`.
    func readLine(timeout: Double = 20) -> PeerRead {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            if let nl = buffer.firstIndex(of: 10) {
                var line = Array(buffer[..<nl])
                buffer.removeFirst(nl + 1)
                if line.last == 13 { line.removeLast() }
                return .line(String(decoding: line, as: UTF8.self))
            }
            if sawEOF { return .closed }
            let left = deadline.timeIntervalSinceNow
            guard left > 0 else { return .timeout }
            fill(waitMilliseconds: Int32(min(left, 0.5) * 1000))
        }
    }

    /// Reads whatever arrives within `waitMilliseconds`; false if nothing did.
    @discardableResult
    func fill(waitMilliseconds: Int32) -> Bool {
        guard !sawEOF else { return false }
        var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        guard poll(&pfd, 1, waitMilliseconds) > 0 else { return false }
        var chunk = [UInt8](repeating: 0, count: 256 * 1024)
        let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        if n <= 0 {
            if n < 0 && errno == EINTR { return false }
            sawEOF = true
            return false
        }
        buffer.append(contentsOf: chunk[0..<n])
        if keepReceived { received.append(contentsOf: chunk[0..<n]) }
        return true
    }

    /// The next line that is not an EVENT (events are dropped).
    func reply(timeout: Double = 20) -> PeerRead {
        while true {
            let r = readLine(timeout: timeout)
            if case .line(let l) = r, l.hasPrefix("EVENT") { continue }
            return r
        }
    }

    /// Sends a line and returns the next non-EVENT line, or a marker string.
    func command(_ line: String, timeout: Double = 20) -> String {
        guard send(line + "\r\n") else { return "<send failed>" }
        switch reply(timeout: timeout) {
        case .line(let l): return l
        case .closed: return "<closed>"
        case .timeout: return "<timeout>"
        }
    }

    /// True once the server has closed the connection within `timeout`, reading (and keeping in
    /// the line buffer) whatever comes before.
    func waitClosed(timeout: Double = 20) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while !sawEOF && deadline.timeIntervalSinceNow > 0 {
            fill(waitMilliseconds: 200)
        }
        return sawEOF
    }

    /// The complete lines buffered so far (after `waitClosed`, everything the server sent).
    func drainLines() -> [String] {
        var lines: [String] = []
        while let nl = buffer.firstIndex(of: 10) {
            var line = Array(buffer[..<nl])
            buffer.removeFirst(nl + 1)
            if line.last == 13 { line.removeLast() }
            lines.append(String(decoding: line, as: UTF8.self))
        }
        return lines
    }

    var bufferedBytes: Int { buffer.count }

    /// Closes with SO_LINGER {1, 0}: the kernel sends a RST instead of a FIN.
    func reset() {
        guard fd >= 0 else { return }
        var l = linger(l_onoff: 1, l_linger: 0)
        setsockopt(fd, SOL_SOCKET, SO_LINGER, &l, socklen_t(MemoryLayout<linger>.size))
        close()
    }

    func close() {
        guard fd >= 0 else { return }
        Glibc.close(fd)
        fd = -1
    }
}

/// Readings from /proc for a process.
enum ProcStat {
    /// A "Vm..." field of /proc/<pid>/status in bytes (VmRSS, VmHWM), or nil.
    static func status(_ pid: Int32, _ field: String) -> Int? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return nil }
        for line in text.split(separator: "\n") where line.hasPrefix(field + ":") {
            let digits = line.dropFirst(field.count + 1).filter { $0.isNumber }
            return Int(digits).map { $0 * 1024 }
        }
        return nil
    }

    /// User + system CPU time of the process, in seconds.
    static func cpuSeconds(_ pid: Int32) -> Double? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = text.lastIndex(of: ")") else { return nil }
        let fields = text[text.index(after: close)...].split(separator: " ")
        // After the command name: state is field 3 of the line; utime and stime are 14 and 15.
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    /// Open file descriptors of the process.
    static func openFiles(_ pid: Int32) -> Int {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd").count) ?? -1
    }
}

/// Sets another process's RLIMIT_NOFILE (glibc's prlimit, looked up at run time).
func setFileLimit(pid: Int32, soft: Int, hard: Int) -> Bool {
    typealias PrlimitFn = @convention(c) (pid_t, Int32, UnsafePointer<rlimit>?, UnsafeMutablePointer<rlimit>?) -> Int32
    guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "prlimit") else { return false }
    let prlimitFn = unsafeBitCast(symbol, to: PrlimitFn.self)
    var limit = rlimit(rlim_cur: rlim_t(soft), rlim_max: rlim_t(hard))
    return prlimitFn(pid, Int32(RLIMIT_NOFILE.rawValue), &limit, nil) == 0
}

/// Raises this process's soft RLIMIT_NOFILE toward `wanted` (up to the hard limit); the result.
@discardableResult
func raiseOwnFileLimit(to wanted: Int) -> Int {
    Int(clamping: Platform.raiseOpenFileLimit(toward: UInt64(wanted))?.soft ?? 0)
}

/// The `juice-server` binary as a process, optionally started through `/bin/sh -c '<prefix>; exec ...'`
/// (for `ulimit`), with its log in a file.
final class HardServer: @unchecked Sendable {
    // @unchecked: owned by one test.
    let process = Process()
    let logPath: String
    private(set) var port = 0
    var pid: Int32 { process.processIdentifier }

    init(_ arguments: [String], environment: [String: String] = [:], shellPrefix: String? = nil) throws {
        logPath = temporaryDirectory("juice-hard-log") + "/server.log"
        _ = FileManager.default.createFile(atPath: logPath, contents: nil)
        let args = arguments.contains("--port") ? arguments : arguments + ["--port", "0"]
        port = try ExecutableServer.launch(process, arguments: args, logPath: logPath, environment: environment,
                                           shellPrefix: shellPrefix)
    }

    func log() -> String {
        (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? ""
    }

    var logLineCount: Int { log().split(separator: "\n").count }

    var isRunning: Bool { process.isRunning }

    func peer(receiveBuffer: Int? = nil) throws -> Peer {
        try Peer(port: port, receiveBuffer: receiveBuffer)
    }

    func client(readGreeting: Bool = true) throws -> LineClient {
        try LineClient(port: port, readGreeting: readGreeting)
    }

    func signal(_ number: Int32) {
        if process.isRunning { kill(process.processIdentifier, number) }
    }

    var rss: Int { ProcStat.status(pid, "VmRSS") ?? 0 }
    var peakRSS: Int { ProcStat.status(pid, "VmHWM") ?? 0 }
    var cpuSeconds: Double { ProcStat.cpuSeconds(pid) ?? 0 }

    /// Waits for the process to end; its exit status (negative: killed by that signal), or nil.
    func waitForExit(timeout: Double = 30) -> Int32? {
        _ = eventually(timeout: timeout) { !process.isRunning }
        guard !process.isRunning else { return nil }
        return process.terminationReason == .uncaughtSignal ? -process.terminationStatus : process.terminationStatus
    }

    deinit {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        removeTemporary(URL(fileURLWithPath: logPath).deletingLastPathComponent().path)
    }
}

func mebibytes(_ bytes: Int) -> String {
    String(format: "%.1f MiB", Double(bytes) / 1_048_576)
}

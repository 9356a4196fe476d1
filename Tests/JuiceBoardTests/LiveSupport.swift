import Foundation
import Glibc
import JuiceCore
import Testing

/// Helpers for tests that run the real `juice-server` and `juice-board` executables.

struct LiveTestError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// Where SwiftPM put the executables: next to the test bundle.
let executablesDirectory: URL = {
    let exe = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
    var dir = URL(fileURLWithPath: exe).deletingLastPathComponent()
    if dir.path.contains(".xctest/") {
        while dir.pathExtension != "xctest" && dir.path != "/" { dir = dir.deletingLastPathComponent() }
        dir = dir.deletingLastPathComponent()
    }
    return dir
}()

func executable(_ name: String) -> String { executablesDirectory.appendingPathComponent(name).path }

func temporaryDirectory(_ prefix: String) -> String {
    var template = Array((NSTemporaryDirectory() + "/\(prefix).XXXXXX").utf8CString)
    let path = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
    return path.map { String(cString: $0) } ?? NSTemporaryDirectory()
}

/// Polls `condition` until it holds or `timeout` seconds pass. Generous timeouts, no timing
/// assertions: CI is a busy 2-core machine.
@discardableResult
func eventually(timeout: Double = 30, _ condition: () -> Bool) -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
    while Date() < deadline {
        if condition() { return true }
        usleep(20_000)
    }
    return condition()
}

func readText(_ path: String) -> String {
    (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
}

/// A child process with its stdout and stderr going to files (no pipes to drain, no threads).
final class ChildProcess: @unchecked Sendable {
    // @unchecked: used from one test at a time.
    let process = Process()
    let stdoutPath: String
    let stderrPath: String

    init(_ path: String, _ arguments: [String], directory: String) throws {
        stdoutPath = directory + "/\(URL(fileURLWithPath: path).lastPathComponent)-\(UUID().uuidString.prefix(8)).out"
        stderrPath = stdoutPath.replacingOccurrences(of: ".out", with: ".err")
        _ = FileManager.default.createFile(atPath: stdoutPath, contents: nil)
        _ = FileManager.default.createFile(atPath: stderrPath, contents: nil)
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment
        environment.removeValue(forKey: "JUICE_MANAGER_TOKEN")
        process.environment = environment
        process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: stdoutPath))
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: stderrPath))
        process.standardInput = FileHandle.nullDevice
        try process.run()
    }

    var output: String { readText(stdoutPath) }
    var errors: String { readText(stderrPath) }

    /// SIGTERM, then wait for the exit (SIGKILL if it does not come).
    func stop() {
        guard process.isRunning else { return }
        kill(process.processIdentifier, SIGTERM)
        if !eventually(timeout: 20, { !process.isRunning }) {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }

    deinit {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    }
}

/// The real juice-server on a data directory.
final class LiveServer: @unchecked Sendable {
    let child: ChildProcess
    let port: Int

    /// Starts it and waits for "juice-server listening on 127.0.0.1:<port>".
    /// With `port` 0 the server picks one; a restart passes the same port again.
    init(dataDirectory: String, port: Int, logDirectory: String, extraArguments: [String] = []) throws {
        let child = try ChildProcess(executable("juice-server"),
                                     ["--data", dataDirectory, "--port", String(port)] + extraArguments,
                                     directory: logDirectory)
        self.child = child
        var found: Int? = nil
        eventually(timeout: 60) {
            found = LiveServer.listeningPort(in: child.output + child.errors)
            return found != nil || !child.process.isRunning
        }
        guard let found, child.process.isRunning else {
            throw LiveTestError("juice-server did not start: \(child.output) \(child.errors)")
        }
        self.port = found
    }

    static func listeningPort(in text: String) -> Int? {
        guard let range = text.range(of: "listening on ") else { return nil }
        let rest = text[range.upperBound...].prefix { $0 != "\n" }
        guard let colon = rest.lastIndex(of: ":") else { return nil }
        return Int(rest[rest.index(after: colon)...].trimmingCharacters(in: .whitespaces))
    }

    func stop() { child.stop() }
}

/// A blocking line client, like a cashier with nc.
final class LineClient {
    private let fd: Int32
    private var buffer: [UInt8] = []

    init(port: Int) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var timeout = timeval(tv_sec: 20, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard result == 0 else {
            close(fd)
            throw LiveTestError("connect to \(port): \(String(cString: strerror(errno)))")
        }
    }

    deinit { close(fd) }

    /// Sends one command and returns its reply, skipping EVENT lines.
    func command(_ line: String) throws -> String {
        let bytes = Array((line + "\r\n").utf8)
        guard send(fd, bytes, bytes.count, Int32(MSG_NOSIGNAL)) == bytes.count else {
            throw LiveTestError("send failed")
        }
        while true {
            let reply = try readLine()
            if !reply.hasPrefix("EVENT") { return reply }
        }
    }

    func readLine() throws -> String {
        while true {
            if let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                var line = Array(buffer[..<newline])
                buffer.removeFirst(newline + 1)
                if line.last == UInt8(ascii: "\r") { line.removeLast() }
                return String(decoding: line, as: UTF8.self)
            }
            var chunk = [UInt8](repeating: 0, count: 4096)
            let n = recv(fd, &chunk, chunk.count, 0)
            guard n > 0 else { throw LiveTestError("connection closed") }
            buffer += chunk[..<n]
        }
    }
}

/// The seq of every `seq=N ...` line in plain board output, in order.
func printedSeqs(_ output: String) -> [Int] {
    output.split(separator: "\n").compactMap { line in
        guard line.hasPrefix("seq=") else { return nil }
        return WireReader.seq(in: String(line)).map { Int($0) }
    }
}

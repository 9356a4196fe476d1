import Foundation
import Glibc
import JuiceCore
@testable import JuiceServer
import Testing

/// A blocking line client over a real TCP socket, with a deadline on every read: tests wait for
/// conditions generously and never assert on speed.
// @unchecked: a test hands each client to one task at a time; none is shared concurrently.
final class LineClient: @unchecked Sendable {
    let fd: Int32
    private var buffer: [UInt8] = []
    /// EVENT lines seen while waiting for replies, in arrival order.
    var events: [String] = []
    var greeting: String?

    init(port: Int, readGreeting: Bool = true) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port)).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard result == 0 else {
            // No close here: deinit runs for a throwing init too, and a second close could hit
            // a descriptor another test has opened since.
            throw TestError("connect to \(port) failed: errno \(errno)")
        }
        if readGreeting {
            greeting = try readLine()
        }
    }

    deinit { Glibc.close(fd) }

    func sendRaw(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress! + offset, bytes.count - offset, Int32(MSG_NOSIGNAL)) }
            guard n > 0 else { throw TestError("send failed: errno \(errno)") }
            offset += n
        }
    }

    func send(_ line: String) throws {
        try sendRaw(Array((line + "\r\n").utf8))
    }

    /// The next line (without CRLF), waiting up to `timeout` seconds.
    func readLine(timeout: Double = 20) throws -> String {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            if let nl = buffer.firstIndex(of: 10) {
                var line = Array(buffer[..<nl])
                buffer.removeFirst(nl + 1)
                if line.last == 13 { line.removeLast() }
                return String(decoding: line, as: UTF8.self)
            }
            let left = deadline.timeIntervalSinceNow
            guard left > 0 else { throw TestError("no line within \(timeout) s (have \(buffer.count) bytes)") }
            var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ready = poll(&pfd, 1, Int32(min(left, 1) * 1000))
            if ready <= 0 { continue }
            var chunk = [UInt8](repeating: 0, count: 65536)
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            guard n > 0 else { throw TestError("connection closed (have \(buffer.count) bytes: \(String(decoding: buffer, as: UTF8.self)))") }
            buffer.append(contentsOf: chunk[0..<n])
        }
    }

    /// The next reply, keeping EVENT lines aside.
    func reply(timeout: Double = 20) throws -> String {
        while true {
            let line = try readLine(timeout: timeout)
            if line.hasPrefix("EVENT") {
                events.append(line)
                continue
            }
            return line
        }
    }

    func command(_ line: String) throws -> String {
        try send(line)
        return try reply()
    }

    /// The next event with the prefix, from those kept aside or from the wire.
    func nextEvent(_ prefix: String = "EVENT STOCK", timeout: Double = 20) throws -> String {
        if let i = events.firstIndex(where: { $0.hasPrefix(prefix) }) {
            return events.remove(at: i)
        }
        while true {
            let line = try readLine(timeout: timeout)
            if line.hasPrefix(prefix) { return line }
            if line.hasPrefix("EVENT") { events.append(line) } else { throw TestError("expected an event, got reply '\(line)'") }
        }
    }

    /// True once the server has closed the connection (EOF or reset) within `timeout`.
    func closedByServer(timeout: Double = 20) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while deadline.timeIntervalSinceNow > 0 {
            var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            if poll(&pfd, 1, 200) <= 0 { continue }
            var chunk = [UInt8](repeating: 0, count: 65536)
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n <= 0 { return true }
            buffer.append(contentsOf: chunk[0..<n])
        }
        return false
    }
}

struct TestError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Parses `key=value` integers from a reply or event line.
func values(_ line: String) -> [String: Int] {
    WireReader.integers(in: line)
}

/// An in-process server on a free port (port 0), stopped by `stop()`.
struct RunningServer {
    let server: Server
    let port: Int

    static func start(_ configure: (inout ServerConfig) -> Void = { _ in }) async throws -> RunningServer {
        var config = ServerConfig()
        config.port = 0
        config.dataDirectory = nil
        configure(&config)
        let server = try Server.make(config)
        let port = try await server.start()
        return RunningServer(server: server, port: port)
    }

    func client(readGreeting: Bool = true) throws -> LineClient {
        try LineClient(port: port, readGreeting: readGreeting)
    }

    func stop() async {
        await server.stop()
    }
}

/// A fresh temporary directory, removed by the caller with `removeTemporary`.
func temporaryDirectory(_ name: String = "juice-test") -> String {
    let path = NSTemporaryDirectory() + "\(name)-\(UUID().uuidString.prefix(8))"
    try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
}

func removeTemporary(_ path: String) {
    try? FileManager.default.removeItem(atPath: path)
}

/// Polls `condition` until it holds or `timeout` passes: for conditions that settle eventually.
func eventually(timeout: Double = 20, _ condition: () throws -> Bool) rethrows -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
    while deadline.timeIntervalSinceNow > 0 {
        if try condition() { return true }
        usleep(20_000)
    }
    return try condition()
}

/// Runs `body(i)` for i in 0..<count, each on its own thread, and waits for all. Blocking socket
/// loops belong on threads: on the 2-thread Swift cooperative pool they could starve each other.
func onThreads(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) {
    let group = DispatchGroup()
    for i in 0..<count {
        group.enter()
        let thread = Thread {
            body(i)
            group.leave()
        }
        thread.start()
    }
    group.wait()
}

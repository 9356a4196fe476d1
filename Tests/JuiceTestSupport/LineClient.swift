import Foundation
import Glibc

/// A TCP line client over a real socket, the one every test uses, with two faces:
/// - throwing calls (`send`, `readLine`, `reply`, `command`, `nextEvent`) for plain tests: a
///   closed connection or a missed deadline is an error;
/// - non-throwing calls (`write`, `nextLine`, `nextReply`, `ask`, `waitClosed`) for threads and
///   hostile clients, where the server hanging up is an expected outcome to check.
/// Every wait is bounded by a deadline (default `testDeadline`), never a speed requirement.
// @unchecked: a test hands each client to one thread at a time, except that one thread may send
// while another reads; the buffers belong to the reader.
public final class LineClient: @unchecked Sendable {
    public private(set) var fd: Int32
    private var buffer: [UInt8] = []
    private var bufferStart = 0
    /// Every byte received, when `keepReceived` is set (to check the bytes the server sent).
    public var received: [UInt8] = []
    public var keepReceived = false
    public private(set) var sawEOF = false
    /// EVENT lines seen while waiting for replies (`reply`, `command`), in arrival order.
    public var events: [String] = []
    /// The server's first line, when `readGreeting` was set.
    public var greeting: String?

    /// Connects to 127.0.0.1:port. `receiveBuffer` shrinks SO_RCVBUF before connecting (a slow
    /// consumer whose kernel buffer fills at once); `sendTimeout` makes a send to a server that
    /// stopped reading fail after that many seconds instead of blocking for good. `from` binds
    /// the client to another loopback address first (127.0.0.2: another host, as the server
    /// sees it).
    public init(port: Int, readGreeting: Bool = true, receiveBuffer: Int? = nil, sendTimeout: Int? = nil,
                from sourceAddress: String? = nil) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw TestError("socket failed: errno \(errno)") }
        if let size = receiveBuffer {
            var v = Int32(size)
            setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &v, socklen_t(MemoryLayout<Int32>.size))
        }
        if let sendTimeout {
            var tv = timeval(tv_sec: sendTimeout, tv_usec: 0)
            setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        var result: Int32 = 0
        if let sourceAddress {
            address.sin_addr.s_addr = inet_addr(sourceAddress)
            result = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
        }
        address.sin_port = in_port_t(UInt16(port)).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        if result == 0 {
            result = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
        }
        guard result == 0 else {
            let code = errno
            // Closed here and marked closed, so deinit (which runs for a throwing init too) does
            // not close a descriptor number another test may have opened since.
            Glibc.close(fd)
            fd = -1
            throw TestError("connect to \(port) failed: errno \(code)", errno: code)
        }
        if readGreeting {
            greeting = try readLine()
        }
    }

    /// A connection that reads nothing by itself (the test reads the greeting) and whose sends
    /// give up after 30 s: for hostile, flooding and slow clients.
    public static func peer(port: Int, receiveBuffer: Int? = nil) throws -> LineClient {
        try LineClient(port: port, readGreeting: false, receiveBuffer: receiveBuffer, sendTimeout: 30)
    }

    deinit { close() }

    /// The local port, as the server logs it ("127.0.0.1:<port>").
    public var localPort: Int {
        var address = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    // MARK: - Sending

    /// Sends everything; false once the connection fails (reset, closed, send timeout).
    @discardableResult
    public func write(_ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress! + offset, bytes.count - offset, Int32(MSG_NOSIGNAL)) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { return false }
            offset += n
        }
        return true
    }

    /// Sends the text as it is (no line end added); false once the connection fails.
    @discardableResult
    public func write(_ text: String) -> Bool { write(Array(text.utf8)) }

    public func sendRaw(_ bytes: [UInt8]) throws {
        guard write(bytes) else { throw TestError("send failed: errno \(errno)") }
    }

    /// Sends one line, adding CRLF.
    public func send(_ line: String) throws {
        try sendRaw(Array((line + "\r\n").utf8))
    }

    // MARK: - Reading (non-throwing)

    /// The next line (without LF or CRLF), or `.closed` at EOF/reset, or `.timeout`.
    public func nextLine(timeout: Double = testDeadline) -> LineRead {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            if let line = takeLine() { return .got(line) }
            if sawEOF { return .closed }
            let left = deadline.timeIntervalSinceNow
            guard left > 0 else { return .timeout }
            fill(waitMilliseconds: Int32(min(left, 0.5) * 1000))
        }
    }

    /// The next line that is not an EVENT (events are dropped).
    public func nextReply(timeout: Double = testDeadline) -> LineRead {
        .first(within: timeout, { nextLine(timeout: $0) }, where: { !$0.hasPrefix("EVENT") })
    }

    /// Sends a line and returns the next non-EVENT line, or a marker: `<send failed>`,
    /// `<closed>`, `<timeout>`. Never throws: for threads and for servers expected to hang up.
    public func ask(_ line: String, timeout: Double = testDeadline) -> String {
        guard write(line + "\r\n") else { return "<send failed>" }
        switch nextReply(timeout: timeout) {
        case .got(let l): return l
        case .closed: return "<closed>"
        case .timeout: return "<timeout>"
        }
    }

    /// Reads whatever arrives within `waitMilliseconds`; false if nothing did.
    @discardableResult
    public func fill(waitMilliseconds: Int32) -> Bool {
        guard !sawEOF, fd >= 0 else { return false }
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

    /// True once the server has closed the connection (EOF or reset) within `timeout`, reading
    /// (and keeping in the line buffer) whatever comes before.
    public func waitClosed(timeout: Double = testDeadline) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while !sawEOF && deadline.timeIntervalSinceNow > 0 {
            fill(waitMilliseconds: 200)
        }
        return sawEOF
    }

    /// The same as `waitClosed` (the name the throwing tests use).
    public func closedByServer(timeout: Double = testDeadline) -> Bool { waitClosed(timeout: timeout) }

    /// The complete lines buffered so far (after `waitClosed`, everything the server sent).
    public func drainLines() -> [String] {
        var lines: [String] = []
        while let line = takeLine() { lines.append(line) }
        return lines
    }

    /// The lines that come until the server closes (or `timeout` passes with none).
    public func linesUntilClosed(timeout: Double = testDeadline) -> [String] {
        var lines: [String] = []
        while case .got(let line) = nextLine(timeout: timeout) { lines.append(line) }
        return lines
    }

    /// Bytes received but not yet taken as lines.
    public var bufferedBytes: Int { buffer.count - bufferStart }

    /// The next complete line in the buffer. Taken by moving a start index (compacting now and
    /// then), so reading a long run of replies costs no copy of the buffer per line.
    private func takeLine() -> String? {
        guard let nl = buffer[bufferStart...].firstIndex(of: 10) else {
            if bufferStart > 0 {
                buffer.removeFirst(bufferStart)
                bufferStart = 0
            }
            return nil
        }
        var end = nl
        if end > bufferStart && buffer[end - 1] == 13 { end -= 1 }
        let line = String(decoding: buffer[bufferStart..<end], as: UTF8.self)
        bufferStart = nl + 1
        if bufferStart > 1 << 16 {
            buffer.removeFirst(bufferStart)
            bufferStart = 0
        }
        return line
    }

    // MARK: - Reading (throwing)

    /// The next line (without CRLF), waiting up to `timeout` seconds.
    public func readLine(timeout: Double = testDeadline) throws -> String {
        try nextLine(timeout: timeout).value("line", timeout: timeout,
                                             holding: " (have \(bufferedBytes) bytes: \(String(decoding: buffer[bufferStart...], as: UTF8.self)))")
    }

    /// The next reply, keeping EVENT lines aside in `events`.
    public func reply(timeout: Double = testDeadline) throws -> String {
        while true {
            let line = try readLine(timeout: timeout)
            if line.hasPrefix("EVENT") {
                events.append(line)
                continue
            }
            return line
        }
    }

    /// Sends one line and returns its reply (EVENT lines kept aside).
    public func command(_ line: String) throws -> String {
        try send(line)
        return try reply()
    }

    /// The next event with the prefix, from those kept aside or from the wire.
    public func nextEvent(_ prefix: String = "EVENT STOCK", timeout: Double = testDeadline) throws -> String {
        if let i = events.firstIndex(where: { $0.hasPrefix(prefix) }) {
            return events.remove(at: i)
        }
        while true {
            let line = try readLine(timeout: timeout)
            if line.hasPrefix(prefix) { return line }
            if line.hasPrefix("EVENT") { events.append(line) } else { throw TestError("expected an event, got reply '\(line)'") }
        }
    }

    // MARK: - Closing

    /// Closes with SO_LINGER {1, 0}: the kernel sends a RST instead of a FIN.
    public func reset() {
        guard fd >= 0 else { return }
        var l = linger(l_onoff: 1, l_linger: 0)
        setsockopt(fd, SOL_SOCKET, SO_LINGER, &l, socklen_t(MemoryLayout<linger>.size))
        close()
    }

    public func close() {
        guard fd >= 0 else { return }
        Glibc.close(fd)
        fd = -1
    }
}

import JuicePlatform

/// One non-blocking TCP connection to juice-server, split into lines.
/// Non-blocking throughout (connect included) so the poll loop stays responsive to signals,
/// resizes and redraw deadlines even while the server is slow or unreachable.
final class ServerConnection {
    let fd: Int32
    private(set) var isConnecting = true
    private var inbox: [UInt8] = []
    private var outbox: [UInt8] = []
    /// A line longer than this is not juice-server talking: drop the connection.
    private let maxLineBytes = 1 << 20

    struct ReadResult {
        /// Complete lines received, without CR LF.
        var lines: [String] = []
        /// Set when the connection is over; lines read before the close still count.
        var closedReason: String? = nil
    }

    /// Starts connecting to `host:port`. Attempt `attempt` picks among the resolved addresses
    /// (IPv4 first) so that e.g. "localhost" resolving to ::1 first still reaches a server on
    /// 127.0.0.1 on the next try.
    init(host: String, port: UInt16, attempt: Int) throws {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Platform.streamSocketType
        var list: UnsafeMutablePointer<addrinfo>? = nil
        let status = getaddrinfo(host, String(port), &hints, &list)
        guard status == 0, let list else {
            throw SystemError("getaddrinfo \(host)", status == EAI_SYSTEM ? errno : EINVAL)
        }
        defer { freeaddrinfo(list) }
        var candidates: [UnsafeMutablePointer<addrinfo>] = []
        var cursor: UnsafeMutablePointer<addrinfo>? = list
        while let entry = cursor {
            candidates.append(entry)
            cursor = entry.pointee.ai_next
        }
        candidates.sort { ($0.pointee.ai_family == AF_INET ? 0 : 1) < ($1.pointee.ai_family == AF_INET ? 0 : 1) }
        guard !candidates.isEmpty else { throw SystemError("getaddrinfo \(host)", EINVAL) }
        let chosen = candidates[attempt % candidates.count].pointee

        let socketFD = Platform.makeStreamSocket(family: chosen.ai_family)
        guard socketFD >= 0 else { throw SystemError("socket", errno) }
        Platform.setNoDelay(socketFD)
        if connect(socketFD, chosen.ai_addr, chosen.ai_addrlen) == 0 {
            isConnecting = false
        } else if errno != EINPROGRESS {
            let code = errno
            close(socketFD)
            throw SystemError("connect", code)
        }
        fd = socketFD
    }

    deinit { close(fd) }

    /// After poll says the socket is writable while connecting: did the connect succeed?
    func finishConnecting() throws {
        var error: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length)
        if error != 0 { throw SystemError("connect", error) }
        isConnecting = false
    }

    var wantsToWrite: Bool { isConnecting || !outbox.isEmpty }

    func send(_ line: String) {
        outbox += Array((line + "\r\n").utf8)
    }

    /// Writes what the socket takes now; the rest waits for the next POLLOUT.
    func flush() throws {
        while !outbox.isEmpty {
            let n = outbox.withUnsafeBytes { Platform.send(fd, $0.baseAddress!, $0.count) }
            if n > 0 {
                outbox.removeFirst(n)
            } else if n < 0 && errno == EINTR {
                continue
            } else if n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) {
                return
            } else {
                throw SystemError("send", errno)
            }
        }
    }

    /// Reads everything available and returns the complete lines.
    func readLines() -> ReadResult {
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        var result = ReadResult()
        // Bounded per call so a firehose of events cannot starve redraws and signals:
        // whatever is left is still readable on the next poll.
        for _ in 0..<16 {
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress!, $0.count, 0) }
            if n > 0 {
                inbox += chunk[0..<n]
                var start = 0
                while let newline = inbox[start...].firstIndex(of: UInt8(ascii: "\n")) {
                    var end = newline
                    if end > start && inbox[end - 1] == UInt8(ascii: "\r") { end -= 1 }
                    result.lines.append(String(decoding: inbox[start..<end], as: UTF8.self))
                    start = newline + 1
                }
                inbox.removeFirst(start)
                if inbox.count > maxLineBytes {
                    result.closedReason = "line too long from server"
                    return result
                }
            } else if n == 0 {
                result.closedReason = "server closed the connection"
                return result
            } else if errno == EINTR {
                continue
            } else if errno == EAGAIN || errno == EWOULDBLOCK {
                return result
            } else {
                result.closedReason = String(cString: strerror(errno))
                return result
            }
        }
        return result
    }
}

import JuicePlatform

/// Why a chaos client's exchange with the server did not complete. Every one of them is
/// expected while the server is being killed: the client waits a moment and tries again.
enum LinkFailure: Error, Equatable, CustomStringConvertible {
    case cannotConnect(Int32)
    case closed
    case timedOut
    case broken(Int32)
    case malformed(String)

    var description: String {
        switch self {
        case .cannotConnect(let code): return "cannot connect (\(errnoDescription(code)))"
        case .closed: return "connection closed"
        case .timedOut: return "no answer in time"
        case .broken(let code): return "connection broken (\(errnoDescription(code)))"
        case .malformed(let why): return "malformed answer: \(why)"
        }
    }
}

/// One blocking-style client connection with deadlines: non-blocking underneath, waiting in
/// `poll`, so that a read never outlives its timeout. Line replies and HTTP answers are read
/// from the same buffer.
final class ChaosLink {
    let fd: Int32
    private var buffer: [UInt8] = []
    private var start = 0

    /// Connects to `address`, from `source` (a local address to bind first, e.g. 127.0.1.3, so
    /// that each till is its own client address as a real device is; ignored when the system
    /// cannot bind it).
    init(to address: SocketAddress, from source: String? = nil, timeout: Double) throws(LinkFailure) {
        fd = Platform.makeStreamSocket(family: address.systemFamily)
        guard fd >= 0 else { throw .cannotConnect(errno) }
        Platform.setNoDelay(fd)
        if let source, let local = SocketAddress(host: source, port: 0) {
            _ = local.withSockAddr { bind(fd, $0, $1) }
        }
        if address.withSockAddr({ connect(fd, $0, $1) }) != 0 {
            let code = errno
            guard code == EINPROGRESS || code == EINTR else { close(fd); throw .cannotConnect(code) }
            guard wait(for: Int16(POLLOUT), until: monotonicNow() + nanos(seconds: timeout)) else {
                close(fd)
                throw .cannotConnect(ETIMEDOUT)
            }
            let pending = Platform.connectError(fd)
            guard pending == 0 else { close(fd); throw .cannotConnect(pending) }
        }
    }

    deinit { close(fd) }

    /// Writes all of `text`; false if the connection is gone.
    func send(_ text: String) -> Bool {
        Platform.writeAll(fd, text)
    }

    /// The next line, without its CR LF.
    func readLine(timeout: Double) throws(LinkFailure) -> String {
        let deadline = monotonicNow() + nanos(seconds: timeout)
        while true {
            if let newline = buffer[start...].firstIndex(of: ASCII.newline) {
                let end = newline > start && buffer[newline - 1] == ASCII.carriageReturn ? newline - 1 : newline
                let line = String(decoding: buffer[start..<end], as: UTF8.self)
                consume(upTo: newline + 1)
                return line
            }
            try fill(until: deadline)
        }
    }

    /// Exactly `count` bytes.
    func read(count: Int, timeout: Double) throws(LinkFailure) -> [UInt8] {
        let deadline = monotonicNow() + nanos(seconds: timeout)
        while buffer.count - start < count { try fill(until: deadline) }
        let bytes = Array(buffer[start..<start + count])
        consume(upTo: start + count)
        return bytes
    }

    private func consume(upTo index: Int) {
        start = index
        if start == buffer.count {
            buffer.removeAll(keepingCapacity: true)
            start = 0
        } else if start > 65536 {
            buffer.removeSubrange(..<start)
            start = 0
        }
    }

    /// Reads what has arrived (waiting up to the deadline) onto the buffer.
    private func fill(until deadline: Nanos) throws(LinkFailure) {
        guard wait(for: Int16(POLLIN), until: deadline) else { throw .timedOut }
        var chunk = [UInt8](repeating: 0, count: 65536)
        let received = chunk.withUnsafeMutableBytes { Platform.receive(fd, into: $0) }
        if received > 0 {
            buffer.append(contentsOf: chunk[..<received])
        } else if received == 0 {
            throw .closed
        } else if errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR {
            throw .broken(errno)
        }
    }

    /// Polls for `events` until the deadline; true when they (or an error, which the next call
    /// then reports) arrived.
    private func wait(for events: Int16, until deadline: Nanos) -> Bool {
        while true {
            let now = monotonicNow()
            guard now < deadline else { return false }
            var wanted = pollfd(fd: fd, events: events, revents: 0)
            let status = poll(&wanted, 1, Int32(min(1000, (deadline - now) / 1_000_000 + 1)))
            if status > 0 { return true }
            if status < 0 && errno != EINTR { return true }
        }
    }
}

import JuicePlatform

/// The `burst` run's probe: one line connection that sends its request and reads replies
/// (skipping its greeting and lines with a skip prefix, e.g. juice-server's events).
struct ProbeConnection {
    private(set) var fd: Int32 = -1
    private let endpoint: Endpoint
    private let address: SocketAddress
    private let request: [UInt8]
    private let replySkip: [String]
    private var greetingLeft: Int
    private var buffer: [UInt8] = []

    init(_ options: BurstOptions) throws(BenchError) {
        endpoint = options.common.endpoint
        address = try endpoint.socketAddress()
        request = Array((options.probe + "\r\n").utf8)
        replySkip = options.replySkip
        greetingLeft = options.greetingLines
    }

    /// Connects, reads the greeting and proves the server answers (one request, untimed).
    mutating func connect(within timeout: Double) throws(BenchError) {
        fd = try Socket.startConnect(to: address)
        let deadline = monotonicNow() + nanos(seconds: timeout)
        guard wait(POLLOUT, until: deadline), Socket.pendingError(fd) == 0 else {
            throw BenchError.fatal("cannot connect the probe to \(endpoint)")
        }
        try send()
        var answered = false
        while !answered {
            guard wait(POLLIN, until: deadline) else { throw BenchError.fatal("the probe got no reply within \(timeout) s") }
            try receive { _ in answered = true }
        }
    }

    private func wait(_ event: Int32, until deadline: Nanos) -> Bool {
        var pfd = pollfd(fd: fd, events: Int16(event), revents: 0)
        while monotonicNow() < deadline {
            if poll(&pfd, 1, 50) > 0 { return true }
        }
        return false
    }

    /// Writes the request whole (a few bytes: the socket takes them).
    func send() throws(BenchError) {
        let sent = request.withUnsafeBytes { Platform.send(fd, $0.baseAddress!, $0.count) }
        guard sent == request.count else { throw BenchError.fatal("the probe's request could not be sent: \(errnoDescription())") }
    }

    /// Reads what arrived; calls `reply` with the time for each reply line.
    mutating func receive(_ reply: (Nanos) -> Void) throws(BenchError) {
        var chunk = [UInt8](repeating: 0, count: 16 * 1024)
        let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        let now = monotonicNow()
        if count == 0 { throw BenchError.fatal("the server closed the probe's connection") }
        if count < 0 {
            if errno == EAGAIN || errno == EINTR { return }
            throw BenchError.fatal("the probe's connection failed: \(errnoDescription())")
        }
        buffer += chunk[0..<count]
        while let newline = buffer.firstIndex(of: 10) {
            let line = String(decoding: buffer[..<newline], as: UTF8.self)
            buffer.removeFirst(newline + 1)
            if greetingLeft > 0 {
                greetingLeft -= 1
            } else if !replySkip.contains(where: { line.hasPrefix($0) }) {
                reply(now)
            }
        }
    }

    func close() {
        if fd >= 0 { Platform.close(fd) }
    }
}

import JuicePlatform

/// The socket under each of the `burst` run's probes (the line probe, the `/healthz` probe):
/// one connection, one fixed request sent whole, the bytes that arrive. `name` ("the probe")
/// says whose it is in every error.
struct ProbeSocket {
    private(set) var fd: Int32 = -1
    let name: String
    private let endpoint: Endpoint
    private let address: SocketAddress
    private let request: [UInt8]

    init(_ name: String, endpoint: Endpoint, request: String) throws(BenchError) {
        self.name = name
        self.endpoint = endpoint
        address = try endpoint.socketAddress()
        self.request = Array(request.utf8)
    }

    /// Connects (ending any connection before) within `timeout`; returns the deadline.
    mutating func connect(within timeout: Double) throws(BenchError) -> Nanos {
        close()
        fd = try Socket.startConnect(to: address)
        let deadline = monotonicNow() + nanos(seconds: timeout)
        guard wait(POLLOUT, until: deadline), Socket.pendingError(fd) == 0 else {
            throw BenchError.fatal("cannot connect \(name) to \(endpoint)")
        }
        return deadline
    }

    func wait(_ event: Int32, until deadline: Nanos) -> Bool {
        var pfd = pollfd(fd: fd, events: Int16(event), revents: 0)
        while monotonicNow() < deadline {
            if poll(&pfd, 1, 50) > 0 { return true }
        }
        return false
    }

    /// Writes the request whole (a few bytes: the socket takes them).
    func send() throws(BenchError) {
        let sent = request.withUnsafeBytes { Platform.send(fd, $0.baseAddress!, $0.count) }
        guard sent == request.count else { throw BenchError.fatal("\(name)'s request could not be sent: \(errnoDescription())") }
    }

    /// What arrived, and when; no bytes when nothing was ready after all. A connection the
    /// server closed, or one that failed, ends the run.
    func read() throws(BenchError) -> (bytes: ArraySlice<UInt8>, at: Nanos) {
        var chunk = [UInt8](repeating: 0, count: 16 * 1024)
        let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        let now = monotonicNow()
        if count == 0 { throw BenchError.fatal("the server closed \(name)'s connection") }
        if count < 0 {
            if errno == EAGAIN || errno == EINTR { return ([], now) }
            throw BenchError.fatal("\(name)'s connection failed: \(errnoDescription())")
        }
        return (chunk[0..<count], now)
    }

    mutating func close() {
        if fd >= 0 { Platform.close(fd) }
        fd = -1
    }
}

/// A probe of the `burst` run: its socket, and how it reads its answers.
protocol BurstProbe {
    var socket: ProbeSocket { get set }
    /// Reads what arrived; calls `reply` with the time for each whole answer.
    mutating func receive(_ reply: (Nanos) -> Void) throws(BenchError)
}

extension BurstProbe {
    var fd: Int32 { socket.fd }

    func send() throws(BenchError) { try socket.send() }

    mutating func close() { socket.close() }

    /// Connects and proves the server answers (one request, untimed, read by `receive`).
    mutating func connect(within timeout: Double) throws(BenchError) {
        let deadline = try socket.connect(within: timeout)
        try send()
        var answered = false
        while !answered {
            guard socket.wait(POLLIN, until: deadline) else { throw BenchError.fatal("\(socket.name) got no reply within \(timeout) s") }
            try receive { _ in answered = true }
        }
    }
}

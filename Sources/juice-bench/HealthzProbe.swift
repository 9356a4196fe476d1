import JuicePlatform

/// The `burst` run's second probe (`--healthz-port`): `GET /healthz` on one kept-alive HTTP
/// connection, as a load balancer asks, timed apart from the line probe. When the server ends
/// the connection after an answer (its cap of requests per connection), the next request goes
/// on a new one (`mustReconnect`).
struct HealthzProbe {
    private(set) var fd: Int32 = -1
    private let endpoint: Endpoint
    private let address: SocketAddress
    private var reader = HTTPReplyReader()
    private(set) var mustReconnect = false
    private static let request = Array("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".utf8)

    init(host: String, port: Int) throws(BenchError) {
        endpoint = Endpoint(host: host, port: port)
        address = try endpoint.socketAddress()
    }

    /// Connects (the first time also proving the server answers: one request, untimed).
    mutating func connect(within timeout: Double, proving: Bool) throws(BenchError) {
        close()
        reader = HTTPReplyReader()
        mustReconnect = false
        fd = try Socket.startConnect(to: address)
        let deadline = monotonicNow() + nanos(seconds: timeout)
        guard wait(POLLOUT, until: deadline), Socket.pendingError(fd) == 0 else {
            throw BenchError.fatal("cannot connect the /healthz probe to \(endpoint)")
        }
        guard proving else { return }
        try send()
        var answered = false
        while !answered {
            guard wait(POLLIN, until: deadline) else { throw BenchError.fatal("/healthz got no answer within \(timeout) s") }
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

    func send() throws(BenchError) {
        let sent = Self.request.withUnsafeBytes { Platform.send(fd, $0.baseAddress!, $0.count) }
        guard sent == Self.request.count else { throw BenchError.fatal("the /healthz request could not be sent: \(errnoDescription())") }
    }

    /// Reads what arrived; calls `reply` with the time for each whole answer (anything but 200
    /// ends the run: the figure would not be the probe's).
    mutating func receive(_ reply: (Nanos) -> Void) throws(BenchError) {
        var chunk = [UInt8](repeating: 0, count: 16 * 1024)
        let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        let now = monotonicNow()
        if count == 0 { throw BenchError.fatal("the server closed the /healthz probe's connection before answering") }
        if count < 0 {
            if errno == EAGAIN || errno == EINTR { return }
            throw BenchError.fatal("the /healthz probe's connection failed: \(errnoDescription())")
        }
        var answers = 0, closes = false
        var failure: String?
        let outcome = chunk.withUnsafeBytes {
            reader.feed(UnsafeRawBufferPointer(rebasing: $0[0..<count])) { answer in
                guard answer.status == 200 else {
                    failure = answer.statusLine
                    return false
                }
                answers += 1
                closes = closes || answer.closes
                return true
            }
        }
        if case .malformed(let why) = outcome { throw BenchError.fatal("/healthz answer: \(why)") }
        if let failure { throw BenchError.fatal("/healthz answered \(failure)") }
        mustReconnect = closes
        for _ in 0..<answers { reply(now) }
    }

    mutating func close() {
        if fd >= 0 { Platform.close(fd) }
        fd = -1
    }
}

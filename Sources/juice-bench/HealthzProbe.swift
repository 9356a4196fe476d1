import JuicePlatform

/// The `burst` run's second probe (`--healthz-port`): `GET /healthz` on one kept-alive HTTP
/// connection, as a load balancer asks, timed apart from the line probe. When the server ends
/// the connection after an answer (its cap of requests per connection), the next request goes
/// on a new one (`mustReconnect`, then `reconnect`).
struct HealthzProbe: BurstProbe {
    var socket: ProbeSocket
    private var reader = HTTPReplyReader()
    private(set) var mustReconnect = false

    init(host: String, port: Int) throws(BenchError) {
        socket = try ProbeSocket("the /healthz probe", endpoint: Endpoint(host: host, port: port),
                                 request: "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
    }

    /// A new connection in place of one the server ended (untimed, not proved again).
    mutating func reconnect(within timeout: Double) throws(BenchError) {
        reader = HTTPReplyReader()
        mustReconnect = false
        _ = try socket.connect(within: timeout)
    }

    /// Reads what arrived; calls `reply` with the time for each whole answer (anything but 200
    /// ends the run: the figure would not be the probe's).
    mutating func receive(_ reply: (Nanos) -> Void) throws(BenchError) {
        let (bytes, now) = try socket.read()
        guard !bytes.isEmpty else { return }
        var answers = 0, closes = false
        var failure: String?
        let outcome = bytes.withUnsafeBytes {
            reader.feed($0) { answer in
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
}

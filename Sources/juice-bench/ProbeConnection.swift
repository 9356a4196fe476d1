import JuicePlatform

/// The `burst` run's probe: one line connection that sends its request and reads replies
/// (skipping its greeting and lines with a skip prefix, e.g. juice-server's events).
struct ProbeConnection: BurstProbe {
    var socket: ProbeSocket
    private let replySkip: [String]
    private var greetingLeft: Int
    private var buffer: [UInt8] = []

    init(_ options: BurstOptions) throws(BenchError) {
        socket = try ProbeSocket("the probe", endpoint: options.common.endpoint, request: options.probe + "\r\n")
        replySkip = options.replySkip
        greetingLeft = options.greetingLines
    }

    /// Reads what arrived; calls `reply` with the time for each reply line.
    mutating func receive(_ reply: (Nanos) -> Void) throws(BenchError) {
        let (bytes, now) = try socket.read()
        buffer += bytes
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
}

import JuiceCore

/// Where the connection's `AUTH` stands, so a manager call can say why it was refused and try
/// again when it may succeed. Pure: the engine passes the time.
///
/// - A wrong token is final for the connection: the server's token cannot change without a
///   restart, which is a new connection (and a new `AUTH`). Sending it again would only count
///   toward the address's lockout, so it is not re-sent; changes are reported as `.authFailed`.
/// - A lockout (`too many failures, retry in N s`) ends: the first manager call after those N
///   seconds sends `AUTH` again ahead of itself, on the same connection.
struct AuthState: Equatable {
    enum Phase: Equatable {
        /// No AUTH on this connection (no token, or none sent yet).
        case none
        case pending
        case accepted
        /// Refused with the server's text; `retryAt` (monotonic seconds) when it was a lockout.
        case refused(message: String, retryAt: Double?)
    }

    private(set) var phase = Phase.none

    /// A new connection: nothing said on the old one holds.
    mutating func reset() { phase = .none }

    mutating func sent() { phase = .pending }

    /// The reply to an AUTH at time `now`.
    mutating func received(_ line: ServerLine, now: Double) {
        switch line {
        case .ok: phase = .accepted
        case .err(_, let message):
            phase = .refused(message: message, retryAt: Self.retryAfter(message).map { now + Double($0) })
        default: break
        }
    }

    /// Whether a manager call at `now` should send AUTH again first: only after a lockout has run out.
    func shouldRetry(now: Double) -> Bool {
        guard case .refused(_, let retryAt?) = phase else { return false }
        return now >= retryAt
    }

    /// What a FORBIDDEN change stands for after a refused AUTH: the refusal, its wait counted
    /// from `now` (the server's "retry in N s" was true when it was said, not when it is read).
    func refusal(now: Double) -> JuiceError? {
        guard case .refused(let message, let retryAt) = phase else { return nil }
        guard let retryAt else { return .authFailed(message) }
        let left = max(1, Int((retryAt - now).rounded(.up)))
        return .authFailed("too many failures, retry in \(left) s")
    }

    /// N in the server's `too many failures, retry in N s` (PROTOCOL.md, Security).
    static func retryAfter(_ message: String) -> Int? {
        guard let range = message.range(of: "retry in ") else { return nil }
        let digits = message[range.upperBound...].prefix { $0.isASCII && $0.isNumber }
        return Int(digits)
    }
}

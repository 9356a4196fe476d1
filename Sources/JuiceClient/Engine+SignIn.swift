import JuiceCore

/// Where the client stands as a paired till: the credential it sends as `TILL` first on every
/// connection, and, once the server refused it, why. A refusal is final for the credential (the
/// manager revoked the till, or the store does not know it): sending it again would only be
/// refused again, so orders fail at once with the refusal and nothing is sent. Pairing again
/// (`JuiceClient.pair(code:)`) gives a new credential and clears it.
struct TillSignIn {
    var credential: String?
    var refusal: JuiceError?

    init(credential: String?) {
        self.credential = credential
        // Like the manager token, a credential is one word: one with a space or CR/LF would put
        // lines of its own on the connection, so it is never sent, and orders say why.
        if let credential, (try? Arguments.token(credential)) == nil {
            refusal = .badArgument("the till credential must be one word of printable text; TILL was not sent")
        }
    }

    /// The credential to send on a new connection: none once it was refused.
    var usableCredential: String? { refusal == nil ? credential : nil }
}

extension Engine {
    /// Sends `AUTH <token>` if the client has a token it may send. One that is not one word (a
    /// CR/LF in it would start a command) is never sent; RESTOCK/SET say why (`Arguments.token`).
    func sendAuth() {
        guard let token = configuration.managerToken, (try? Arguments.token(token)) != nil else { return }
        auth.sent()
        inflight.append(.auth)
        link?.send("AUTH \(token)")
    }

    /// A FORBIDDEN change on a connection whose AUTH was refused is that refusal: the caller
    /// has a token, and "send AUTH first" would be untrue.
    func explained(_ line: ServerLine, for request: Request) -> ServerLine {
        guard request.kind == .change, case .err("FORBIDDEN", _) = line,
              case .authFailed(let message)? = auth.refusal(now: Self.now()) else { return line }
        return .err(code: "AUTH_FAILED", message: message)
    }

    /// The answer to this connection's `TILL`: REVOKED (the server closes the connection) or an
    /// unknown credential ends the till's selling.
    func tillAnswered(_ line: ServerLine) {
        guard case .err(let code, let message) = line,
              code == ErrorCode.revoked.rawValue || code == ErrorCode.authFailed.rawValue else { return }
        tillRefused(JuiceError(code: code, message: message))
    }

    /// An order was answered: a REVOKED answer (the till was revoked while connected) ends the
    /// till's selling; either way its place on the connection goes to the next held order.
    func orderAnswered(_ line: ServerLine) {
        ordersInFlight = max(0, ordersInFlight - 1)
        if case .err(let code, let message) = line, code == ErrorCode.revoked.rawValue {
            tillRefused(JuiceError(code: code, message: message))
        }
        while ordersInFlight < JuiceClient.maxUnansweredOrders, !held.isEmpty, isReady {
            transmit(held.removeFirst())
        }
    }

    /// The server will take no order from this till: every order still waiting (held, queued,
    /// or sent after the refused `TILL`, which the server does not run) fails with the refusal.
    /// None of them was applied: the server refuses a revoked till's writes, and closes its
    /// connections before reading more. Reads go on, anonymously, on the next connection.
    func tillRefused(_ error: JuiceError) {
        till.refusal = error
        for case .request(let request) in inflight {
            if request.isKeyed { request.finish(.failure(error)) }
        }
        for request in held + queued {
            if request.isKeyed { request.finish(.failure(error)) }
        }
        held = []
        queued.removeAll { $0.continuation == nil }
    }

    /// `PAIR` succeeded: this connection is the till now (the server says so), and every later
    /// one signs in with the new credential.
    func paired(credential: String) {
        till = TillSignIn(credential: credential)
    }

    /// Ends everything: every waiting call fails with `.closed`, every stock stream finishes,
    /// the socket and the timer go.
    func close() {
        guard !closed else { return }
        closed = true
        link?.close()
        link = nil
        generation += 1
        tick?.cancel()
        tick = nil
        for case .request(let request) in inflight { request.finish(.failure(JuiceError.closed)) }
        for request in held + queued { request.finish(.failure(JuiceError.closed)) }
        inflight = []
        held = []
        queued = []
        let streams = subscribers.values
        subscribers = [:]
        for subscriber in streams { subscriber.continuation.finish() }
    }
}

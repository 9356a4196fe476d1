import JuiceCore

/// The HTTP write routes, each the twin of a line command: `POST /orders` is ORDER,
/// `POST /restock` RESTOCK and `POST /set` SET. The JSON body becomes the command's line and
/// runs through the same parser, FruitStore, journal, key memory and broadcast as its twin;
/// the answer is the twin's reply as JSON (`WriteReplyJSON`), sent once durable.
struct HTTPWrites {
    /// What a write produced: the answer, the journal position it waits for, the changes to
    /// broadcast.
    struct Outcome {
        var response: HTTPResponse
        var gate: UInt64 = 0
        var events: [StockEvent] = []
    }

    static let paths: Set<String> = ["/orders", "/restock", "/set"]

    let store: FruitStore
    let parser: CommandParser
    let allowedHosts: [String]

    init(store: FruitStore, allowedHosts: [String]) {
        self.store = store
        self.parser = CommandParser(menu: store.menu)
        self.allowedHosts = allowedHosts
    }

    /// A refusal: the status and `{"ok":false,"error":CODE,"message":...}`.
    static func refusal(_ status: HTTPStatus, _ code: String, _ message: String, headers: [(String, String)] = []) -> HTTPResponse {
        .json(status, WriteReplyJSON.refusal(code: code, message: message), headers: headers)
    }

    /// The status for a line-protocol error code.
    static func status(for code: String) -> HTTPStatus {
        switch code {
        case "OUT_OF_STOCK", "OVER_LIMIT", "KEY_REUSED": return .conflict
        // A full disk (READ_ONLY) and a journal still growing (BUSY) are the server's state,
        // not the order's fault: 503.
        case "READ_ONLY", "BUSY": return .serviceUnavailable
        case "FORBIDDEN", "AUTH_FAILED": return .unauthorized
        default: return .badRequest
        }
    }

    /// Checks who may write and what was sent, then runs it. `bearer` checks the manager token
    /// (nil: go ahead; else the refusal's message and headers).
    func handle(_ request: HTTPRequest, client: RequestClient, bearer: () -> (String, [(String, String)])?) -> Outcome {
        if let why = HostCheck.refusal(host: request.header("host"), origin: request.header("origin"), allowed: allowedHosts) {
            Log.warning("HTTP 403 for \(client.description): \(why)", category: .refusals)
            return Outcome(response: Self.refusal(.forbidden, "FORBIDDEN", why))
        }
        let manager = request.path != "/orders"
        if manager, let (message, headers) = bearer() {
            return Outcome(response: Self.refusal(.unauthorized, "AUTH_FAILED", message, headers: headers))
        }
        // The usual value first, without splitting it (this runs on every write).
        let type = request.header("content-type")
        guard type == "application/json"
            || type?.split(separator: ";").first?.filter({ $0 != " " && $0 != "\t" }).lowercased() == "application/json" else {
            return Outcome(response: Self.refusal(.unsupportedMediaType, "BAD_REQUEST", "the body must be JSON: Content-Type: application/json"))
        }
        let line: String
        switch commandLine(request) {
        case .success(let text): line = text
        case .failure(let refusal): return Outcome(response: refusal.response)
        }
        let parsed = Array(line.utf8).withUnsafeBytes { parser.parse($0, isManager: true) }
        guard case .command(let command) = parsed else {
            if case .refused(let error, _) = parsed {
                return Outcome(response: Self.refusal(Self.status(for: error.code.rawValue), error.code.rawValue, error.message))
            }
            return Outcome(response: Self.refusal(.badRequest, "BAD_REQUEST", "nothing to do"))
        }
        let result = store.assumeIsolated { $0.execute([command], stats: StatsContext(clients: 0, startedAt: 0), peer: client.address) }
        let (outcome, json) = WriteReplyJSON.answer(toReply: result.out, keyed: command.key != nil)
        let status: HTTPStatus
        switch outcome {
        case .ok: status = .ok
        case .refused(let code): status = Self.status(for: code)
        }
        // A full key memory tells the till when to come back; so does a full disk or a journal
        // still growing (no better figure than a second: it is back as soon as there is room).
        let retry = result.retryAfterSeconds ?? (status == .serviceUnavailable ? 1 : nil)
        return Outcome(response: HTTPResponse(status, HTTPResponse.json, body: json, headers: retry.map { [("Retry-After", "\($0)")] } ?? []),
                       gate: result.gate, events: result.events)
    }

    /// The body as its twin's command line, e.g. `ORDER mango-kiwi 2 key=till7-41`.
    private struct Refused: Error {
        let response: HTTPResponse
        init(_ response: HTTPResponse) { self.response = response }
    }

    private func commandLine(_ request: HTTPRequest) -> Result<String, Refused> {
        let body: JSONValue
        switch JSONReader.parse(request.body) {
        case .success(let value): body = value
        case .failure(let error): return .failure(Refused(Self.refusal(.badRequest, "BAD_REQUEST", "malformed JSON: \(error.message)")))
        }
        guard case .object = body else { return .failure(Refused(Self.refusal(.badRequest, "BAD_REQUEST", "the body must be a JSON object"))) }
        let nameKey = request.path == "/orders" ? "juice" : "fruit"
        let numberKey = request.path == "/orders" ? "count" : "amount"
        guard case .string(let name) = body[nameKey] ?? .null, isOneWord(name) else {
            return .failure(Refused(Self.refusal(.badRequest, "BAD_ARGUMENT", "\"\(nameKey)\" must be one name, e.g. \"mango\"")))
        }
        var number = request.path == "/orders" ? 1 : nil as Int?
        if let value = body[numberKey] {
            guard let n = value.integer else {
                return .failure(Refused(Self.refusal(.badRequest, "BAD_ARGUMENT", "\"\(numberKey)\" must be a whole number")))
            }
            number = n
        }
        guard let number else { return .failure(Refused(Self.refusal(.badRequest, "BAD_ARGUMENT", "\"\(numberKey)\" is missing"))) }
        // Every write takes an idempotency key: a retry is applied once and gets the first answer.
        var key = ""
        if let value = request.header("idempotency-key") {
            guard Array(value.utf8).withUnsafeBytes({ CommandParser.isValidKey($0) }) else {
                return .failure(Refused(Self.refusal(.badRequest, "BAD_ARGUMENT",
                                                     "malformed Idempotency-Key: \(CommandParser.keyRule)")))
            }
            key = " key=\(value)"
        }
        switch request.path {
        case "/orders": return .success("ORDER \(name) \(number)\(key)")
        case "/restock": return .success("RESTOCK \(name) \(number)\(key)")
        default: return .success("SET \(name) \(number)\(key)")
        }
    }

    /// Text that stays one token of a command line: no spaces, tabs or control characters.
    private func isOneWord(_ text: String) -> Bool {
        !text.isEmpty && text.unicodeScalars.allSatisfy { $0.value > 0x20 && $0.value != 0x7F && !(0x80...0x9F).contains($0.value) }
    }
}

import JuiceCore
import JuiceDomain
import JuicePlatform
import JuiceLog
import JuiceLoop
import JuiceServices

/// The HTTP write routes, each the twin of a line command: `POST /orders` is ORDER,
/// `POST /voids` VOID, `POST /restock` RESTOCK and `POST /set` SET. The JSON body becomes the command directly
/// (with the line's names, ranges and refusals: `CommandParser.order`), runs through the same
/// FruitStore, journal, key memory and broadcast as its twin, and its outcome is answered as
/// JSON (`WriteAnswer`), sent once durable.
package struct HTTPWrites {
    /// What a write produced: the answer, the journal position it waits for, the changes to
    /// broadcast.
    package struct Outcome {
        package var response: HTTPResponse
        package var lsn: UInt64 = 0
        package var events: [StockEvent] = []
    }

    package static let paths: Set<String> = ["/orders", "/voids", "/restock", "/set"]
    /// The writes a paired till may send (the rest are the manager's).
    package static let tillPaths: Set<String> = ["/orders", "/voids"]

    package let store: FruitStore
    package let parser: CommandParser
    package let answers: WriteAnswer
    package let allowedHosts: [String]

    package init(store: FruitStore, allowedHosts: [String]) {
        self.store = store
        self.parser = CommandParser(menu: store.menu)
        self.answers = WriteAnswer(menu: store.menu)
        self.allowedHosts = allowedHosts
    }

    /// Checks what was sent, then runs it as `role` (`HTTPRoutes` decided who may write).
    package func handle(_ request: HTTPRequest, client: RequestClient, role: ClientRole) -> Outcome {
        if let why = HostCheck.refusal(host: request.header("host"), origin: request.header("origin"), allowed: allowedHosts) {
            Log.warning("HTTP 403 for \(client.description): \(why)", category: .refusals)
            return Outcome(response: WriteAnswer.refusal(.forbidden, .forbidden, why))
        }
        // The usual value first, without splitting it (this runs on every write).
        let type = request.header("content-type")
        guard type == "application/json"
            || type?.split(separator: ";").first?.filter({ $0 != " " && $0 != "\t" }).lowercased() == "application/json" else {
            return Outcome(response: WriteAnswer.refusal(.unsupportedMediaType, .badRequest, "the body must be JSON: Content-Type: application/json"))
        }
        let command: StoreCommand
        switch self.command(request) {
        case .success(let made): command = made
        case .failure(let refused): return Outcome(response: refused.response)
        }
        var written: WriteOutcome?
        // The answer is worded below, as a response: nothing is written into the run's output.
        var unused: [UInt8] = []
        let end = store.assumeIsolated { store in
            store.run([command], peer: client.address, role: role, into: &unused) { outcome, _ in
                if case .write(let outcome) = outcome { written = outcome }
            }
        }
        guard let written else { preconditionFailure("a write's outcome is a write outcome") }
        return Outcome(response: answers.response(written, keyed: command.key != nil), lsn: end.lsn, events: end.events)
    }

    private struct Refused: Error {
        package let response: HTTPResponse
        package init(_ status: HTTPStatus, _ code: ErrorCode, _ message: String) {
            response = WriteAnswer.refusal(status, code, message)
        }
    }

    /// The body as its twin's command: `{"juice":"mango-kiwi","count":2}` with
    /// `Idempotency-Key: till7-41` is `ORDER mango-kiwi 2 key=till7-41`.
    private func command(_ request: HTTPRequest) -> Result<StoreCommand, Refused> {
        let body: JSONValue
        switch JSONReader.parse(request.body) {
        case .success(let value): body = value
        case .failure(let error): return .failure(Refused(.badRequest, .badRequest, "malformed JSON: \(error.message)"))
        }
        guard case .object = body else { return .failure(Refused(.badRequest, .badRequest, "the body must be a JSON object")) }
        var key: String?
        if let value = request.header("idempotency-key") {
            guard Array(value.utf8).withUnsafeBytes({ CommandParser.isValidKey($0) }) else {
                return .failure(Refused(.badRequest, .badArgument, "malformed Idempotency-Key: \(CommandParser.keyRule)"))
            }
            key = value
        }
        if request.path == "/voids" { return void(body, key: key) }
        let isOrder = request.path == "/orders"
        let nameKey = isOrder ? "juice" : "fruit"
        let numberKey = isOrder ? "count" : "amount"
        guard case .string(let name) = body[nameKey] ?? .null, isOneWord(name) else {
            return .failure(Refused(.badRequest, .badArgument, "\"\(nameKey)\" must be one name, e.g. \"mango\""))
        }
        var number = isOrder ? 1 : nil as Int?
        if let value = body[numberKey] {
            guard let n = value.integer else {
                return .failure(Refused(.badRequest, .badArgument, "\"\(numberKey)\" must be a whole number"))
            }
            number = n
        }
        guard let number else { return .failure(Refused(.badRequest, .badArgument, "\"\(numberKey)\" is missing")) }
        // Every write takes an idempotency key: a retry is applied once and gets the first answer.
        let made = switch request.path {
        case "/orders": parser.order(juice: name, count: number, key: key)
        case "/restock": parser.stockWrite(.restock, fruit: name, amount: number, key: key)
        default: parser.stockWrite(.set, fruit: name, amount: number, key: key)
        }
        return made.mapError { Refused(WriteAnswer.status(for: $0.code), $0.code, $0.message) }
    }

    /// `{"sale":7,"reason":"wrong-juice"}`: `VOID 7 wrong-juice`.
    private func void(_ body: JSONValue, key: String?) -> Result<StoreCommand, Refused> {
        guard let sale = body["sale"]?.integer else {
            return .failure(Refused(.badRequest, .badArgument, "\"sale\" must be the sale's seq, a whole number"))
        }
        guard case .string(let reason) = body["reason"] ?? .null else {
            return .failure(Refused(.badRequest, .badArgument, "\"reason\" must be one of " + VoidReason.allCases.map(\.rawValue).joined(separator: ", ")))
        }
        return parser.void(sale: sale, reason: reason, key: key).mapError { Refused(WriteAnswer.status(for: $0.code), $0.code, $0.message) }
    }

    /// A name is one token of its twin's line: no spaces, tabs or control characters.
    private func isOneWord(_ text: String) -> Bool {
        !text.isEmpty && text.unicodeScalars.allSatisfy { $0.value > 0x20 && $0.value != 0x7F && !(0x80...0x9F).contains($0.value) }
    }
}

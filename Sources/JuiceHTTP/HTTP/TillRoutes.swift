import JuiceCore
import JuiceDomain
import JuicePlatform
import JuiceLog
import JuiceLoop
import JuiceServices

/// The tills over HTTP (PROTOCOL.md, "Tills"), each the twin of a line command:
///
/// - `POST /tills/pair` `{"code":"K7QF-M2XP"}` is `PAIR`: anyone with a code; the answer holds
///   the till's credential, shown this once;
/// - `GET /tills/list` is `TILLS`; `POST /tills/codes` `{"name":"Front till"}` is `TILLS NEW`;
///   `POST /tills/rename` `{"till":3,"name":"Back till"}` and `POST /tills/revoke` `{"till":3}`
///   are `TILLS RENAME` and `TILLS REVOKE`: the manager's (`Authorization: Bearer`, with a token).
///
/// A paired till then sends its credential on every write: `Juice-Till: <credential>`.
package struct TillRoutes {
    package static let posts: Set<String> = ["/tills/pair", "/tills/codes", "/tills/rename", "/tills/revoke"]
    package static let header = "juice-till"

    package let store: FruitStore

    /// A manager's or a till's request, already past the Host check and (for the manager's) the
    /// token. Returns the answer, the journal position it waits for, and the till it paired or
    /// revoked.
    package func answer(_ request: HTTPRequest, presence: TillPresence) -> (HTTPResponse, lsn: UInt64, paired: TillID?, revoked: TillID?) {
        let command: StoreCommand
        if request.method == "GET" || request.method == "HEAD" {
            command = .tills(.list)
        } else {
            switch Self.command(request) {
            case .success(let made): command = made
            case .failure(let error): return (Self.refusal(error), 0, nil, nil)
            }
        }
        var result: TillsOutcome?
        // The answer is worded below, as a response: nothing is written into the run's output.
        var unused: [UInt8] = []
        let end = store.assumeIsolated { store in
            store.run([command], peer: "", into: &unused) { outcome, _ in if case .tills(let outcome) = outcome { result = outcome } }
        }
        guard let result else { preconditionFailure("a tills command answers a tills outcome") }
        switch result {
        case .refused(let error):
            return (Self.refusal(error), end.lsn, nil, nil)
        case .noSuchTill(let error):
            return (WriteAnswer.refusal(.notFound, error.code, error.message), end.lsn, nil, nil)
        case .paired(let info, let credential):
            return (Self.json([("ok", "true"), ("credential", JSONText.string(credential)), ("till", Self.json(info, presence))]),
                    end.lsn, info.till.id, nil)
        case .code(let code, let name, let expiresIn):
            var members = [("ok", "true"), ("code", JSONText.string(code)), ("expires_in", JSONText.number(expiresIn))]
            if let name { members.append(("name", JSONText.string(name))) }
            return (Self.json(members), end.lsn, nil, nil)
        case .list(let infos):
            return (Self.json([("ok", "true"), ("tills", JSONText.array(infos.map { Self.json($0, presence) }))]), end.lsn, nil, nil)
        case .renamed(let info):
            return (Self.json([("ok", "true"), ("till", Self.json(info, presence))]), end.lsn, nil, nil)
        case .revoked(let info):
            return (Self.json([("ok", "true"), ("till", Self.json(info, presence))]), end.lsn, nil, info.till.id)
        }
    }

    private static func command(_ request: HTTPRequest) -> Result<StoreCommand, ProtocolError> {
        guard case .success(let body) = JSONReader.parse(request.body), case .object = body else {
            return .failure(ProtocolError(.badRequest, "the body must be a JSON object"))
        }
        func name() -> Result<String, ProtocolError> {
            guard case .string(let name)? = body["name"] else { return .failure(ProtocolError(.badArgument, "\"name\" must be a string")) }
            if let problem = TillName.problem(name) { return .failure(ProtocolError(.badArgument, problem)) }
            return .success(name)
        }
        func till() -> Result<TillID, ProtocolError> {
            guard let n = body["till"]?.integer, n >= 1, n <= Int(TillID.max) else {
                return .failure(ProtocolError(.badArgument, "\"till\" must be a till's number, from GET /tills/list"))
            }
            return .success(TillID(n))
        }
        switch request.path {
        case "/tills/pair":
            guard case .string(let code)? = body["code"] else { return .failure(ProtocolError(.badArgument, "\"code\" must be the pairing code")) }
            return .success(.pair(code: code))
        case "/tills/codes":
            if body["name"] == nil || body["name"] == .null { return .success(.tills(.newCode(name: nil))) }
            return name().map { .tills(.newCode(name: $0)) }
        case "/tills/rename":
            return till().flatMap { id in name().map { .tills(.rename(id, name: $0)) } }
        default:
            return till().map { .tills(.revoke($0)) }
        }
    }

    package static func json(_ info: TillInfo, _ presence: TillPresence) -> String {
        let till = info.till
        var members = [("till", JSONText.number(till.id)), ("name", JSONText.string(till.name)),
                       ("paired", JSONText.string(UTCTime.text(till.pairedAt))),
                       ("revoked", till.revokedAt.map { JSONText.string(UTCTime.text($0)) } ?? "null"),
                       ("last_seen", presence.lastSeen(till.id).map { JSONText.string(UTCTime.text($0)) } ?? "null"),
                       ("connected", presence.isConnected(till.id) ? "true" : "false"),
                       ("orders_today", JSONText.number(info.ordersToday)), ("juices_today", JSONText.number(info.juicesToday))]
        if till.revokedAt == nil { members.append(("active", "true")) } else { members.append(("active", "false")) }
        return JSONText.object(members)
    }

    private static func json(_ members: [(String, String)]) -> HTTPResponse {
        HTTPResponse(.ok, HTTPResponse.json, body: Array(JSONText.object(members).utf8))
    }

    /// A refusal's status: 409 for a store with no room for another till or code (the
    /// manager's to change, not a server fault), else as a write's.
    package static func refusal(_ error: ProtocolError) -> HTTPResponse {
        let status = switch error.code {
        case .badArgument: HTTPStatus.badRequest
        case .busy: HTTPStatus.conflict
        default: WriteAnswer.status(for: error.code)
        }
        return WriteAnswer.refusal(status, error.code, error.message,
                                   headers: status == .serviceUnavailable ? [("Retry-After", "1")] : [])
    }
}

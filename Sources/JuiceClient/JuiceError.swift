import JuiceCore

/// Why a call failed. The protocol's refusals (`ERR <CODE> <text>`) map one to one, each with the
/// server's text; a refusal changed nothing on the server. The last cases are the client's own.
public enum JuiceError: Error, Sendable, Equatable, CustomStringConvertible {
    case unknownCommand(String)
    case unknownJuice(String)
    case unknownFruit(String)
    case badArgument(String)
    /// A refusal for stock. `order` returns `.outOfStock(needs:has:)` instead of throwing this.
    case outOfStock(String)
    case overLimit(String)
    case keyReused(String)
    case badRequest(String)
    case lineTooLong(String)
    /// RESTOCK or SET without the manager token (or with none configured on this client); a
    /// void of another till's sale, or of this till's own past its window (10 minutes): the
    /// manager voids those.
    case forbidden(String)
    case authFailed(String)
    /// The server is at its client limit; the client keeps retrying until its bound.
    case busy(String)
    /// The server cannot write its journal (e.g. a full disk) and takes no changes for now.
    case readOnly(String)
    /// The manager revoked this till (`TILLS REVOKE`, or Revoke on `/tills`): its credential is
    /// refused for good, and the order was not applied. Every order still waiting fails with
    /// this too, unsent; pair the till again (`JuiceClient.pair(code:)`) to sell.
    case revoked(String)
    /// The server is shutting down (HTTP's 503 `SHUTTING_DOWN`; a line client gets `EVENT BYE`).
    case shuttingDown(String)
    /// A void named a seq that is no sale of today's business day (another day's, a restock's,
    /// or none). A till voids today's sales only.
    case noSuchSale(String)
    /// A void named a sale that was voided already (by another key): nothing changed. The
    /// server's text says at which seq.
    case alreadyVoided(String)
    /// An `ERR` code this version does not know, as sent.
    case server(code: String, message: String)

    /// The connection failed after the order was sent and the server could not be reached again
    /// within the client's retry bound: it MAY have been applied. Retrying with `key` is safe.
    case orderInDoubt(key: String, reason: String)
    /// A void was sent and the server could not be reached again within the retry bound (or the
    /// task was cancelled after it was sent): it MAY have been applied. Retrying with `key` is
    /// safe: a keyed void is applied once.
    case voidInDoubt(key: String, reason: String)
    /// A RESTOCK or SET was sent but its reply was lost with the connection: it MAY have been
    /// applied, and unlike an order it cannot be retried safely. Check the stock first.
    case changeInDoubt(command: String, reason: String)
    /// The server could not be reached within the retry bound; the call was never sent.
    case unreachable(String)
    /// The server sent something this client cannot read (a protocol mismatch).
    case unexpectedReply(String)
    /// `close()` was called (or the client was released) before the call finished.
    case closed

    /// The protocol's refusals: each code and the case it stands for, one table read both ways
    /// (`init(code:message:)` and `refusal`).
    private static let refusals: [(code: ErrorCode, make: @Sendable (String) -> JuiceError)] = [
        (.unknownCommand, { .unknownCommand($0) }), (.unknownJuice, { .unknownJuice($0) }),
        (.unknownFruit, { .unknownFruit($0) }), (.badArgument, { .badArgument($0) }),
        (.outOfStock, { .outOfStock($0) }), (.overLimit, { .overLimit($0) }), (.keyReused, { .keyReused($0) }),
        (.badRequest, { .badRequest($0) }), (.lineTooLong, { .lineTooLong($0) }), (.forbidden, { .forbidden($0) }),
        (.authFailed, { .authFailed($0) }), (.busy, { .busy($0) }), (.readOnly, { .readOnly($0) }),
        (.revoked, { .revoked($0) }), (.shuttingDown, { .shuttingDown($0) }),
        (.noSuchSale, { .noSuchSale($0) }), (.alreadyVoided, { .alreadyVoided($0) }),
    ]

    /// The error an `ERR <code> <message>` line stands for.
    public init(code: String, message: String) {
        guard let entry = Self.refusals.first(where: { $0.code.rawValue == code }) else {
            self = .server(code: code, message: message)
            return
        }
        self = entry.make(message)
    }

    /// For a refusal of the server's: its code and the server's words, as sent.
    public var refusal: (code: String, message: String)? {
        if case .server(let code, let message) = self { return (code, message) }
        // A refusal case carries only the server's text; the table says which code made it.
        guard let message = Mirror(reflecting: self).children.first?.value as? String,
              let entry = Self.refusals.first(where: { $0.make(message) == self }) else { return nil }
        return (entry.code.rawValue, message)
    }

    public var description: String {
        if let refusal { return refusal.code + " " + refusal.message }
        switch self {
        case .orderInDoubt(let key, let reason):
            return "the order may have been applied (\(reason)); retry it with key=\(key)"
        case .voidInDoubt(let key, let reason):
            return "the void may have been applied (\(reason)); retry it with key=\(key)"
        case .changeInDoubt(let command, let reason):
            return "\(command) may have been applied (\(reason)); check the stock before repeating it"
        case .unreachable(let reason): return "server unreachable: \(reason)"
        case .unexpectedReply(let line): return "unexpected reply: \(line)"
        case .closed: return "the client was closed"
        default: return "refused"   // every refusal is described above, through `refusal`
        }
    }
}

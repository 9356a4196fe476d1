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
    /// RESTOCK or SET without the manager token (or with none configured on this client).
    case forbidden(String)
    case authFailed(String)
    /// The server is at its client limit; the client keeps retrying until its bound.
    case busy(String)
    /// The server cannot write its journal (e.g. a full disk) and takes no changes for now.
    case readOnly(String)
    /// An `ERR` code this version does not know, as sent.
    case server(code: String, message: String)

    /// The connection failed after the order was sent and the server could not be reached again
    /// within the client's retry bound: it MAY have been applied. Retrying with `key` is safe.
    case orderInDoubt(key: String, reason: String)
    /// A RESTOCK or SET was sent but its reply was lost with the connection: it MAY have been
    /// applied, and unlike an order it cannot be retried safely. Check the stock first.
    case changeInDoubt(command: String, reason: String)
    /// The server could not be reached within the retry bound; the call was never sent.
    case unreachable(String)
    /// The server sent something this client cannot read (a protocol mismatch).
    case unexpectedReply(String)
    /// `close()` was called (or the client was released) before the call finished.
    case closed

    /// The error an `ERR <code> <message>` line stands for.
    public init(code: String, message: String) {
        switch ErrorCode(rawValue: code) {
        case .unknownCommand: self = .unknownCommand(message)
        case .unknownJuice: self = .unknownJuice(message)
        case .unknownFruit: self = .unknownFruit(message)
        case .badArgument: self = .badArgument(message)
        case .outOfStock: self = .outOfStock(message)
        case .overLimit: self = .overLimit(message)
        case .keyReused: self = .keyReused(message)
        case .badRequest: self = .badRequest(message)
        case .lineTooLong: self = .lineTooLong(message)
        case .forbidden: self = .forbidden(message)
        case .authFailed: self = .authFailed(message)
        case .busy: self = .busy(message)
        case .readOnly: self = .readOnly(message)
        case .none: self = .server(code: code, message: message)
        }
    }

    public var description: String {
        switch self {
        case .unknownCommand(let m): return "UNKNOWN_COMMAND \(m)"
        case .unknownJuice(let m): return "UNKNOWN_JUICE \(m)"
        case .unknownFruit(let m): return "UNKNOWN_FRUIT \(m)"
        case .badArgument(let m): return "BAD_ARGUMENT \(m)"
        case .outOfStock(let m): return "OUT_OF_STOCK \(m)"
        case .overLimit(let m): return "OVER_LIMIT \(m)"
        case .keyReused(let m): return "KEY_REUSED \(m)"
        case .badRequest(let m): return "BAD_REQUEST \(m)"
        case .lineTooLong(let m): return "LINE_TOO_LONG \(m)"
        case .forbidden(let m): return "FORBIDDEN \(m)"
        case .authFailed(let m): return "AUTH_FAILED \(m)"
        case .busy(let m): return "BUSY \(m)"
        case .readOnly(let m): return "READ_ONLY \(m)"
        case .server(let code, let m): return "\(code) \(m)"
        case .orderInDoubt(let key, let reason):
            return "the order may have been applied (\(reason)); retry it with key=\(key)"
        case .changeInDoubt(let command, let reason):
            return "\(command) may have been applied (\(reason)); check the stock before repeating it"
        case .unreachable(let reason): return "server unreachable: \(reason)"
        case .unexpectedReply(let line): return "unexpected reply: \(line)"
        case .closed: return "the client was closed"
        }
    }
}

import JuiceCore

/// The answer a keyed void got, reduced as an order's is (`OrderAnswer`): the change it made (its
/// seq, the sale it undid, the stock it gave back to, the amount it reversed), or the refusal.
/// A line reply and an HTTP answer to the same key reduce to the same value.
enum VoidAnswer: Equatable, CustomStringConvertible {
    case voided(seq: Int, sale: Int, stock: [String: Int], amount: Int?)
    case refused(code: String, message: String)

    var seq: Int? {
        if case .voided(let seq, _, _, _) = self { return seq }
        return nil
    }

    var amount: Int? {
        if case .voided(_, _, _, let amount) = self { return amount }
        return nil
    }

    var description: String {
        switch self {
        case .voided(let seq, let sale, let stock, let amount):
            return "seq=\(seq) sale=\(sale) " + stock.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
                + (amount.map { " amount=\($0)" } ?? "")
        case .refused(let code, let message): return "\(code) \(message)"
        }
    }
}

/// What one reply to a keyed void means for the till that sent it. A till voids only a sale it
/// made moments ago, so every refusal of a void (NO_SUCH_SALE: the sale was lost;
/// ALREADY_VOIDED: applied twice; FORBIDDEN: not its own, or past the window) is kept as its
/// answer and fails the voids check; any other error is a fault, as it is for an order.
enum VoidReply: Equatable, KeyedReply {
    case definite(VoidAnswer, dup: Bool)
    /// The refusals a void may get (PROTOCOL.md, "VOID").
    static let voidRefusals: Set<String> = ["NO_SUCH_SALE", "ALREADY_VOIDED", "FORBIDDEN", "OVER_LIMIT"]

    /// Not answered (BUSY, READ_ONLY, shutting down): the same key again after `retryAfter`.
    case retryLater(String, retryAfter: Double)
    case unexpected(String)

    /// `OK VOID <juice> <count> seq=<n> fruit=n ... sale=<n> [amount=<n>] reason=<r> [dup]`.
    static func line(_ text: String) -> VoidReply {
        switch ServerLine.parse(text) {
        case .ok("VOID", let fields):
            guard let void = WireReader.void(fields: fields) else { return .unexpected(text) }
            return .definite(.voided(seq: void.update.seq, sale: void.sale, stock: OrderReply.stockDictionary(void.update.values),
                                     amount: void.amount), dup: void.duplicate)
        case .err(let code, let message):
            if OrderReply.transientCodes.contains(code) { return .retryLater(text, retryAfter: 0.05) }
            return voidRefusals.contains(code) ? .definite(.refused(code: code, message: message), dup: false) : .unexpected(text)
        default:
            return .unexpected(text)
        }
    }

    /// A `POST /voids` answer: 200 `{"ok":true,"sale":1,"seq":4,"stock":{...},"amount":...,"dup":...}`.
    static func http(status: Int, retryAfter: Double?, body: [UInt8]) -> VoidReply {
        http(status: status, retryAfter: retryAfter, body: body) { json, seq, stock in
            guard let sale = json["sale"]?.integer else { return nil }
            return .definite(.voided(seq: seq, sale: sale, stock: stock, amount: json["amount"]?.integer), dup: json["dup"] == .bool(true))
        } refused: { code, message, _ in
            voidRefusals.contains(code) ? .definite(.refused(code: code, message: message), dup: false) : nil
        }
    }
}

/// A void's key re-sent at the end and the answer it got then.
struct ResentVoid: Equatable, Sendable {
    var key: String
    var first: VoidAnswer
    var reply: VoidReply
}

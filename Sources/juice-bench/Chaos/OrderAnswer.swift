import JuiceCore

/// The answer a keyed order got, reduced to what a retry must repeat: the change it made (its
/// seq, the stock it left and, with prices, its amount), or the refusal. A line reply and an HTTP answer to the same key
/// reduce to the same value, so a key first answered over TCP can be checked over HTTP.
enum OrderAnswer: Equatable, CustomStringConvertible {
    case made(seq: Int, stock: [String: Int], amount: Int? = nil)
    case refused(code: String, message: String)

    var seq: Int? {
        if case .made(let seq, _, _) = self { return seq }
        return nil
    }

    var amount: Int? {
        if case .made(_, _, let amount) = self { return amount }
        return nil
    }

    var description: String {
        switch self {
        case .made(let seq, let stock, let amount):
            return "seq=\(seq) " + stock.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
                + (amount.map { " amount=\($0)" } ?? "")
        case .refused(let code, let message): return "\(code) \(message)"
        }
    }
}

/// What one reply to an order means for the till that sent it.
enum OrderReply: Equatable, KeyedReply {
    /// Answered for good: applied, or refused for stock. `dup`: the server repeated the first
    /// answer to this key (an earlier attempt was applied, and its answer lost). `voided`: the
    /// seq of the void that undid the sale, which a repeat of a voided sale's key names.
    case definite(OrderAnswer, dup: Bool, voided: Int? = nil)
    /// Not answered: nothing was applied and the key was not taken (BUSY, READ_ONLY, shutting
    /// down). The same key is sent again after `retryAfter` seconds.
    case retryLater(String, retryAfter: Double)
    /// Nothing a keyed order should ever get (KEY_REUSED, a malformed reply): a failure.
    case unexpected(String)

    /// Codes that say "not now", never "no".
    static let transientCodes: Set<String> = ["BUSY", "READ_ONLY", "SHUTTING_DOWN"]

    /// A line protocol reply: `OK ORDER ...` or `ERR CODE message`, maybe ending ` dup`.
    static func line(_ text: String) -> OrderReply {
        switch ServerLine.parse(text) {
        case .ok("ORDER", let fields):
            guard let order = WireReader.order(fields: fields) else { return .unexpected(text) }
            return .definite(.made(seq: order.update.seq, stock: stockDictionary(order.update.values), amount: order.amount),
                             dup: order.duplicate, voided: order.voidedBy)
        case .err(let code, let message):
            let dup = message.hasSuffix(" dup")
            let bare = dup ? String(message.dropLast(4)) : message
            if code == "OUT_OF_STOCK" { return .definite(.refused(code: code, message: bare), dup: dup) }
            if transientCodes.contains(code) { return .retryLater(text, retryAfter: 0.05) }
            return .unexpected(text)
        default:
            return .unexpected(text)
        }
    }

    /// A `POST /orders` answer: its status, `Retry-After` (if any) and JSON body.
    static func http(status: Int, retryAfter: Double?, body: [UInt8]) -> OrderReply {
        http(status: status, retryAfter: retryAfter, body: body) { json, seq, stock in
            .definite(.made(seq: seq, stock: stock, amount: json["amount"]?.integer), dup: json["dup"] == .bool(true),
                      voided: json["voided"]?.integer)
        } refused: { code, message, json in
            status == 409 && code == "OUT_OF_STOCK" ? .definite(.refused(code: code, message: message), dup: json["dup"] == .bool(true)) : nil
        }
    }

    static func stockDictionary(_ values: [(fruit: String, count: Int)]) -> [String: Int] {
        Dictionary(values.map { ($0.fruit, $0.count) }, uniquingKeysWith: { _, last in last })
    }
}

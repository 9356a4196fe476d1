import JuiceCore

/// What a reply to a keyed order and to a keyed void have in common: each reads a line reply and
/// a `POST` answer, and besides its definite answer it may be "not now" (the same key again
/// later) or a fault.
protocol KeyedReply {
    static func line(_ text: String) -> Self
    static func http(status: Int, retryAfter: Double?, body: [UInt8]) -> Self
    static func retryLater(_ text: String, retryAfter: Double) -> Self
    static func unexpected(_ text: String) -> Self
}

extension KeyedReply {
    /// A `POST` answer read the way orders and voids both take it: a body that is not JSON is
    /// a retry (503) or a fault; a 200 `ok` answer with its `seq` and `stock` is what `applied`
    /// makes of it (nil: not a whole answer); an error with a "not now" code or a 503 is a retry,
    /// and any other is what `refused` makes of it (nil: a fault).
    static func http(
        status: Int, retryAfter: Double?, body: [UInt8],
        applied: (_ json: JSONValue, _ seq: Int, _ stock: [String: Int]) -> Self?,
        refused: (_ code: String, _ message: String, _ json: JSONValue) -> Self?
    ) -> Self {
        let text = String(decoding: body.prefix(300), as: UTF8.self)
        guard case .success(let json) = JSONReader.parse(body) else {
            return status == 503 ? .retryLater("503 \(text)", retryAfter: retryAfter ?? 0.05) : .unexpected("\(status) \(text)")
        }
        if status == 200, json["ok"] == .bool(true), let seq = json["seq"]?.integer,
           case .object(let members)? = json["stock"] {
            var stock: [String: Int] = [:]
            for (fruit, value) in members {
                guard let n = value.integer else { return .unexpected("200 \(text)") }
                stock[fruit] = n
            }
            if let reply = applied(json, seq, stock) { return reply }
        }
        guard case .string(let code)? = json["error"], case .string(let message)? = json["message"] else {
            return .unexpected("\(status) \(text)")
        }
        if status == 503 || OrderReply.transientCodes.contains(code) { return .retryLater("\(status) \(text)", retryAfter: retryAfter ?? 0.05) }
        return refused(code, message, json) ?? .unexpected("\(status) \(text)")
    }
}

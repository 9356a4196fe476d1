/// The JSON answer of an HTTP write (`POST /orders`, `/restock`, `/set`), made from the line
/// protocol's reply to the same command, so both protocols say the same thing:
///
///     OK ORDER mango-kiwi 2 seq=7 mango=6 kiwi=8
///     {"ok":true,"juice":"mango-kiwi","count":2,"seq":7,"stock":{"mango":6,"kiwi":8},"dup":false}
///     ERR OUT_OF_STOCK needs strawberry=20 has strawberry=10
///     {"ok":false,"error":"OUT_OF_STOCK","message":"needs strawberry=20 has strawberry=10",
///      "needs":{"strawberry":20},"has":{"strawberry":10}}
///
/// A repeated idempotency key's answer (the original reply plus ` dup`) gets `"dup":true`.
public enum WriteReplyJSON {
    public enum Outcome: Equatable, Sendable {
        case ok
        /// Refused with the line protocol's error code (e.g. `OUT_OF_STOCK`).
        case refused(code: String)
    }

    /// The outcome and JSON text for one reply line (without its line end). `keyed`: the write
    /// carried an idempotency key, so a RESTOCK or SET answer says `"dup"` too (an ORDER's
    /// always does).
    public static func answer(toReply line: String, keyed: Bool = false) -> (outcome: Outcome, json: String) {
        var words = line.split(separator: " ", omittingEmptySubsequences: true)
        let dup = words.last == "dup"
        if dup { words.removeLast() }
        let reply = ServerLine.parse(words.joined(separator: " "))
        switch reply {
        case .ok(let verb, let fields) where verb == "ORDER" && fields.count >= 3:
            return (.ok, JSONText.object([
                ("ok", "true"), ("juice", JSONText.string(String(fields[0]))), ("count", String(fields[1])),
            ] + seqAndStock(fields.dropFirst(2)) + [("dup", dup ? "true" : "false")]))
        case .ok(_, let fields):
            return (.ok, JSONText.object([("ok", "true")] + seqAndStock(fields[...]) + (keyed || dup ? [("dup", dup ? "true" : "false")] : [])))
        case .err(let code, let message):
            return (.refused(code: code), refusal(code: code, message: message, dup: dup))
        default:
            return (.refused(code: "BAD_REQUEST"), refusal(code: "BAD_REQUEST", message: "unexpected reply: \(line)"))
        }
    }

    /// `{"ok":false,"error":CODE,"message":...}`; an `OUT_OF_STOCK` adds what the order needs
    /// and what there is, per fruit.
    public static func refusal(code: String, message: String, dup: Bool = false) -> String {
        var members = [("ok", "false"), ("error", JSONText.string(code)), ("message", JSONText.string(message))]
        if code == ErrorCode.outOfStock.rawValue {
            var needs: [(String, String)] = [], has: [(String, String)] = []
            var inHas = false
            for word in message.split(separator: " ") {
                if word == "needs" { inHas = false; continue }
                if word == "has" { inHas = true; continue }
                guard let eq = word.firstIndex(of: "="), let n = Int(word[word.index(after: eq)...]) else { continue }
                let pair = (String(word[..<eq]), JSONText.number(n))
                if inHas { has.append(pair) } else { needs.append(pair) }
            }
            members += [("needs", JSONText.object(needs)), ("has", JSONText.object(has))]
        }
        if dup { members.append(("dup", "true")) }
        return JSONText.object(members)
    }

    /// `"seq":N,"stock":{fruit:value,...}` from `seq=N fruit=value ...`.
    private static func seqAndStock(_ fields: ArraySlice<Substring>) -> [(String, String)] {
        var seq = "0"
        var stock: [(String, String)] = []
        for (key, value) in WireReader.pairs(Array(fields)) {
            guard let n = Int(value) else { continue }
            if key == "seq" { seq = JSONText.number(n) } else { stock.append((key, JSONText.number(n))) }
        }
        return [("seq", seq), ("stock", JSONText.object(stock))]
    }
}

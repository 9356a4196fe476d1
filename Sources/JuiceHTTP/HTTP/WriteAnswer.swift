import JuiceCore
import JuiceDomain
import JuicePlatform
import JuiceLog
import JuiceLoop
import JuiceServices

/// HTTP's words for a write's outcome (`POST /orders`, `/voids`, `/restock`, `/set`): a status and a JSON
/// body, written from the values, the same answer the line protocol gives in its own words:
///
///     {"ok":true,"juice":"mango-kiwi","count":2,"seq":7,"stock":{"mango":6,"kiwi":8},"amount":11000,"dup":false}
///     {"ok":true,"juice":"mango-kiwi","count":2,"sale":7,"reason":"wrong-juice","seq":8,"stock":{"mango":8,"kiwi":9},"amount":11000,"dup":false}
///     {"ok":false,"error":"OUT_OF_STOCK","message":"needs strawberry=20 has strawberry=10",
///      "needs":{"strawberry":20},"has":{"strawberry":10}}
///
/// A retry of a held key gets its first answer with `"dup":true`; a RESTOCK or SET says `"dup"`
/// only when it carried a key (an ORDER always does).
package final class WriteAnswer: Sendable {
    package let menu: Menu
    /// Each juice's name as a JSON string, and each fruit's `"name":`, encoded once.
    private let juiceNames: [[UInt8]]
    private let fruitKeys: [[UInt8]]

    package init(menu: Menu) {
        self.menu = menu
        juiceNames = menu.juices.map { Array(JSONText.string($0.name).utf8) }
        fruitKeys = menu.fruits.map { JSONText.memberKey($0.name) }
    }

    /// The answer to `outcome`; `keyed`: the write carried an idempotency key.
    package func response(_ outcome: WriteOutcome, keyed: Bool) -> HTTPResponse {
        let dup: Bool
        let first: WriteOutcome
        if case .duplicate(let original) = outcome { (dup, first) = (true, original) } else { (dup, first) = (false, outcome) }
        if case .applied(let change) = first {
            return HTTPResponse(.ok, HTTPResponse.json, body: applied(change, dup: dup, keyed: keyed))
        }
        guard let error = Wire.refusal(first, menu: menu) else { preconditionFailure("an applied write is not a refusal") }
        var status = WriteAnswer.status(for: error.code)
        // A till that may not void this sale is known and signed in: forbidden, not unauthenticated.
        if case .voidRefused(.notYours) = first { status = .forbidden }
        if case .voidRefused(.windowPassed) = first { status = .forbidden }
        // A full key memory tells the till when to come back; so does a full disk or a journal
        // still growing (no better figure than a second: it is back as soon as there is room).
        var retryAfter: Int? = status == .serviceUnavailable ? 1 : nil
        if case .unavailable(.keyMemoryFull(let refusal)) = first { retryAfter = refusal.retryAfterSeconds }
        var members = [("ok", "false"), ("error", JSONText.string(error.code.rawValue)), ("message", JSONText.string(error.message))]
        if case .outOfStock(let request, let have) = first {
            var needs: [(String, String)] = [], has: [(String, String)] = []
            for (i, ingredient) in menu.juices[request.juice].recipe.enumerated() where i < have.count {
                let need = ingredient.amount * request.count
                guard have[i] < need else { continue }
                needs.append((menu.fruits[ingredient.fruit].name, JSONText.number(need)))
                has.append((menu.fruits[ingredient.fruit].name, JSONText.number(have[i])))
            }
            members += [("needs", JSONText.object(needs)), ("has", JSONText.object(has))]
        }
        if dup { members.append(("dup", "true")) }
        return HTTPResponse(status, HTTPResponse.json, body: Array(JSONText.object(members).utf8),
                            headers: retryAfter.map { [("Retry-After", "\($0)")] } ?? [])
    }

    /// `{"ok":true,...}` for an applied change, built as bytes (the `POST /orders` hot path).
    private func applied(_ change: Change, dup: Bool, keyed: Bool) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(128)
        out.append(ascii: "{\"ok\":true")
        switch change.kind {
        case .order(let request):
            appendJuice(request.juice, count: request.count, to: &out)
        case .void(let request, let juice, let count):
            appendJuice(juice, count: count, to: &out)
            out.append(ascii: ",\"sale\":")
            out.append(decimal: request.sale)
            out.append(ascii: ",\"reason\":\"")
            out.append(request.reason.rawValue)
            out.append(UInt8(ascii: "\""))
        case .restock, .set:
            break
        }
        out.append(ascii: ",\"seq\":")
        out.append(decimal: change.seq)
        out.append(ascii: ",\"stock\":")
        JSONText.appendObject(change.touched, key: { fruitKeys[$0.fruit] }, value: { $0.value }, to: &out)
        if let amount = change.amount {
            out.append(ascii: ",\"amount\":")
            out.append(decimal: amount)
        }
        if let voided = change.voidedBy {
            out.append(ascii: ",\"voided\":")
            out.append(decimal: voided)
        }
        switch change.kind {
        case .order, .void:
            out.append(ascii: dup ? ",\"dup\":true}" : ",\"dup\":false}")
        case .restock, .set:
            // Said only where a key was sent (PROTOCOL.md, "Writes").
            if keyed || dup { out.append(ascii: dup ? ",\"dup\":true" : ",\"dup\":false") }
            out.append(UInt8(ascii: "}"))
        }
        return out
    }

    private func appendJuice(_ juice: Int, count: Int, to out: inout [UInt8]) {
        out.append(ascii: ",\"juice\":")
        out.append(contentsOf: juiceNames[juice])
        out.append(ascii: ",\"count\":")
        out.append(decimal: count)
    }

    /// `{"ok":false,"error":CODE,"message":...}`: a refusal before any write ran.
    package static func refusal(_ status: HTTPStatus, _ code: ErrorCode, _ message: String, headers: [(String, String)] = []) -> HTTPResponse {
        .json(status, JSONText.object([("ok", "false"), ("error", JSONText.string(code.rawValue)), ("message", JSONText.string(message))]),
              headers: headers)
    }

    /// The status for a refusal's code.
    package static func status(for code: ErrorCode) -> HTTPStatus {
        switch code {
        case .outOfStock, .overLimit, .keyReused, .alreadyVoided: return .conflict
        case .noSuchSale: return .notFound
        // A full disk (READ_ONLY) and a journal still growing (BUSY) are the server's state,
        // not the order's fault: 503.
        case .readOnly, .busy: return .serviceUnavailable
        case .forbidden, .authFailed, .revoked: return .unauthorized
        default: return .badRequest
        }
    }
}

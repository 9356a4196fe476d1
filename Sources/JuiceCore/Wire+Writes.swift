/// The line form of a write's outcome (`WriteOutcome`): the reply to ORDER, RESTOCK and SET,
/// and the text a remembered key's `K` record keeps (`RecordedReply`).
extension Wire {
    /// `OK ORDER mango 1 seq=3 mango=7`, `ERR OUT_OF_STOCK needs ... has ...`, and a retry's
    /// first reply with ` dup`. Without `lineEnd` it is the form a `K` record keeps.
    package static func appendReply(to outcome: WriteOutcome, menu: Menu, to out: inout [UInt8], lineEnd: Bool = true) {
        switch outcome {
        case .applied(let change):
            appendReply(for: change, menu: menu, to: &out, lineEnd: lineEnd)
            return
        case .duplicate(let first):
            appendReply(to: first, menu: menu, to: &out, lineEnd: false)
            out.append(contentsOf: lineEnd ? dupSuffix : dupWord)
            return
        default:
            guard let error = refusal(outcome, menu: menu) else { return }
            out.append(ascii: "ERR ")
            out.append(error.code.rawValue)
            out.append(ascii: " ")
            out.append(error.message)
            if lineEnd { out.appendLineEnd() }
        }
    }

    /// A write's reply line without CRLF (the text of a `K` record).
    package static func replyLine(to outcome: WriteOutcome, menu: Menu) -> [UInt8] {
        var line: [UInt8] = []
        appendReply(to: outcome, menu: menu, to: &line, lineEnd: false)
        return line
    }

    /// A revoked till's every write (PROTOCOL.md, "Tills").
    package static let tillRevoked = ProtocolError(.revoked, "this till was removed by the manager; nothing was sold: pair it again")

    /// Why a VOID was not applied, in words.
    package static func voidRefused(_ refusal: WriteOutcome.VoidRefusal, menu: Menu) -> ProtocolError {
        switch refusal {
        case .noSuchSale(let sale):
            return ProtocolError(.noSuchSale, "no sale of today's business day has seq=\(sale)")
        case .alreadyVoided(let sale, let by):
            return ProtocolError(.alreadyVoided, "sale seq=\(sale) was voided at seq=\(by)")
        case .notYours(let sale):
            return ProtocolError(.forbidden, "sale seq=\(sale) was not made by this till: ask the manager to void it")
        case .windowPassed(let sale, let seconds):
            return ProtocolError(.forbidden, "a till voids its own sales within \(seconds / 60) minutes; sale seq=\(sale) is older: ask the manager")
        case .overLimit(let sale, let fruit):
            return ProtocolError(.overLimit, "voiding sale seq=\(sale) would take \(menu.fruits[fruit].name) past the limit of \(Limits.maxStock)")
        }
    }

    private static let dupWord: [UInt8] = Array(" dup".utf8)

    /// The refusal an outcome is (a duplicate's: its first one's), or nil if it applied.
    package static func refusal(_ outcome: WriteOutcome, menu: Menu) -> ProtocolError? {
        switch outcome {
        case .applied:
            return nil
        case .outOfStock(let request, let have):
            return outOfStock(juice: request.juice, count: request.count, have: have, menu: menu)
        case .overLimit(let fruit, let stock, let amount):
            return overLimit(fruit: fruit, stock: stock, adding: amount, menu: menu)
        case .duplicate(let first):
            return refusal(first, menu: menu)
        case .keyReused(let key, let first):
            return keyReused(key: key, for: first, menu: menu)
        case .unavailable(.keyMemoryFull(let refusal)):
            return keyMemoryFull(refusal)
        case .unavailable(.readOnly(let reason)):
            return readOnly(reason)
        case .unavailable(.journalGrowing):
            return journalGrowing
        case .tillRevoked:
            return tillRevoked
        case .voidRefused(let refusal):
            return voidRefused(refusal, menu: menu)
        }
    }
}

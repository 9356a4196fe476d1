/// `VOID <sale seq> <reason> [key=<token>]` (PROTOCOL.md, "VOID"): the sale by the seq its
/// `OK ORDER` gave, the reason one of `VoidReason`'s words.
extension CommandParser {
    func parseVoid(_ tokens: Tokens) -> ParsedLine {
        let usage = "usage: VOID <sale seq> <reason> [key=<token>], reason one of " + VoidReason.allCases.map(\.rawValue).joined(separator: " ")
        guard tokens.count == 3 || tokens.count == 4 else { return refuse(.badArgument, usage) }
        guard let sale = Self.decimal(tokens[1], in: 1...Int(Int64.max)) else {
            return refuse(.badArgument, "the sale is its seq, a whole number from 1 (the seq= of its OK ORDER)")
        }
        guard let reason = VoidReason.allCases.first(where: { equalsFolded(tokens[2], Array($0.rawValue.utf8)) }) else {
            return refuse(.badArgument, usage)
        }
        switch lastKey(tokens, at: 3, usage: usage) {
        case .success(let key): return .command(.void(VoidRequest(sale: UInt64(sale), reason: reason, key: key)))
        case .failure(let refused): return refused.line
        }
    }
}

/// What one request line asks for. Parsing never allocates for the common commands.
package enum ParsedLine: Sendable, Equatable {
    /// A blank line: ignored, no reply.
    case empty
    case command(Command)
    /// Refused before execution; `close` is set for lines after which the connection ends
    /// (an HTTP request sent to us by mistake or by a cross-protocol attack).
    case refused(ProtocolError, close: Bool)
}

/// Turns one line (without its line end) into a `Command`, checking, in order: the bytes
/// (UTF-8, no control characters), the verb, the caller's permission, then each argument's
/// form and range. Stock limits are the store's business, checked later.
package final class CommandParser: Sendable {
    package let menu: Menu

    package init(menu: Menu) {
        self.menu = menu
    }

    /// `mayWrite`: whether this client may ORDER (a paired till or the manager, or anyone on a
    /// server with no manager token).
    package func parse(_ line: UnsafeRawBufferPointer, isManager: Bool = true, mayWrite: Bool = true) -> ParsedLine {
        if let problem = LineCheck.problem(in: line) {
            return .refused(ProtocolError(.badRequest, problem), close: false)
        }
        let tokens = Tokens(line)
        guard tokens.count > 0 else { return .empty }
        if tokens.looksLikeHTTP {
            return .refused(ProtocolError(.badRequest, "this is a juice-server line protocol, not HTTP"), close: true)
        }
        let verbBytes = tokens[0]
        guard let verb = Verb.folded.first(where: { equalsFolded(verbBytes, $0.1) })?.0 else {
            return refuse(.unknownCommand, "unknown command '\(Self.shown(verbBytes))', try HELP")
        }
        if verb.needsManager && !isManager {
            return refuse(.forbidden, "\(verb.rawValue) needs a manager: send AUTH <token> first")
        }
        if (verb == .order || verb == .void) && !mayWrite {
            return refuse(.forbidden, "\(verb.rawValue) needs a paired till: send TILL <credential> first (or PAIR <code> once)")
        }
        let argc = tokens.count - 1
        switch verb {
        case .help, .ping, .stats, .quit:
            guard argc == 0 else { return refuse(.badArgument, "\(verb.rawValue) takes no arguments") }
            switch verb {
            case .help: return .command(.help)
            case .ping: return .command(.ping)
            case .stats: return .command(.stats)
            default: return .command(.quit)
            }
        case .menu:
            if argc == 0 { return .command(.menu) }
            if argc == 1 && equalsFolded(tokens[1], Keywords.aliases) { return .command(.menuAliases) }
            if argc == 1 && equalsFolded(tokens[1], Keywords.prices) { return .command(.menuPrices) }
            return refuse(.badArgument, "usage: MENU [ALIASES | PRICES]")
        case .stock:
            if argc == 0 { return .command(.stock(fruit: nil)) }
            guard argc == 1 else { return refuse(.badArgument, "usage: STOCK [fruit]") }
            guard let fruit = menu.fruitIndex(tokens[1]) else { return unknownFruit(tokens[1]) }
            return .command(.stock(fruit: fruit))
        case .order:
            return parseOrder(tokens)
        case .restock, .set:
            return parseStockWrite(verb, tokens)
        case .events:
            guard argc == 1 else { return refuse(.badArgument, "usage: EVENTS ON|OFF") }
            if equalsFolded(tokens[1], Keywords.on) { return .command(.events(on: true)) }
            if equalsFolded(tokens[1], Keywords.off) { return .command(.events(on: false)) }
            return refuse(.badArgument, "usage: EVENTS ON|OFF")
        case .report:
            if argc == 0 { return .command(.report(day: nil)) }
            guard argc == 1, let day = BusinessCalendar.day(ofDate: text(tokens[1])) else {
                return refuse(.badArgument, "usage: REPORT [YYYY-MM-DD], a date such as 2026-11-25")
            }
            return .command(.report(day: day))
        case .since:
            let usage = "usage: SINCE <seq> [store=<id>], seq a whole number"
            guard argc == 1 || argc == 2, let seq = Self.decimal(tokens[1], in: 0...Int(Int64.max)) else {
                return refuse(.badArgument, usage)
            }
            guard argc == 2 else { return .command(.since(UInt64(seq))) }
            let token = tokens[2]
            let prefix = Keywords.store.count
            guard token.count > prefix, equalsFolded(UnsafeRawBufferPointer(rebasing: token[0..<prefix]), Keywords.store) else {
                return refuse(.badArgument, usage)
            }
            let value = UnsafeRawBufferPointer(rebasing: token[prefix...])
            guard Self.isValidKey(value) else {
                return refuse(.badArgument, "store must be 1 to \(Limits.maxKeyBytes) characters of A-Z a-z 0-9 . _ : -")
            }
            return .command(.since(UInt64(seq), store: text(value)))
        case .auth:
            guard argc == 1 else { return refuse(.badArgument, "usage: AUTH <token>") }
            return .command(.auth(token: Array(tokens[1])))
        case .till, .pair, .tills:
            return Self.parseTillVerb(verb, line: text(line), argc: argc)
        case .void:
            return parseVoid(tokens)
        }
    }

    private func parseOrder(_ tokens: Tokens) -> ParsedLine {
        let usage = "usage: ORDER <juice> [count] [key=<token>]"
        guard tokens.count >= 2 else { return refuse(.badArgument, usage) }
        guard let juice = menu.juiceIndex(tokens[1]) else {
            return refuse(.unknownJuice, "no juice named '\(Self.shown(tokens[1]))', see MENU")
        }
        var count: Int?
        var key: String?
        var i = 2
        while i < tokens.count {
            let token = tokens[i]
            switch keyToken(token) {
            case .key(let value):
                guard key == nil else { return refuse(.badArgument, usage) }
                key = value
            case .malformed:
                guard key == nil else { return refuse(.badArgument, usage) }
                return refuse(.badArgument, Self.keyRule)
            case .notAKey:
                guard count == nil, key == nil else { return refuse(.badArgument, usage) }
                guard let n = Self.decimal(token, in: 1...Limits.maxOrderCount) else {
                    return refuse(.badArgument, "count must be a whole number from 1 to \(Limits.maxOrderCount)")
                }
                count = n
            }
            i += 1
        }
        return .command(.order(OrderRequest(juice: juice, count: count ?? 1, key: key)))
    }

    /// `RESTOCK|SET <fruit> <amount> [key=<token>]`.
    private func parseStockWrite(_ verb: Verb, _ tokens: Tokens) -> ParsedLine {
        let usage = verb == .set ? "usage: SET <fruit> <amount> [key=<token>]" : "usage: RESTOCK <fruit> <amount> [key=<token>]"
        guard tokens.count == 3 || tokens.count == 4 else { return refuse(.badArgument, usage) }
        guard let fruit = menu.fruitIndex(tokens[1]) else { return unknownFruit(tokens[1]) }
        let lowest = verb == .set ? 0 : 1
        guard let amount = Self.decimal(tokens[2], in: lowest...Limits.maxStock) else {
            return refuse(.badArgument, "amount must be a whole number from \(lowest) to \(Limits.maxStock)")
        }
        let key: String?
        switch lastKey(tokens, at: 3, usage: usage) {
        case .success(let found): key = found
        case .failure(let refused): return refused.line
        }
        return .command(verb == .set ? .set(fruit: fruit, amount: amount, key: key) : .restock(fruit: fruit, amount: amount, key: key))
    }

    /// The optional `key=<token>` a write ends with, at token `index` (nil when the line ends
    /// before it); a refusal when that token is a malformed key or no key at all.
    func lastKey(_ tokens: Tokens, at index: Int, usage: String) -> Result<String?, RefusedLine> {
        guard tokens.count > index else { return .success(nil) }
        switch keyToken(tokens[index]) {
        case .key(let value): return .success(value)
        case .malformed: return .failure(RefusedLine(refuse(.badArgument, Self.keyRule)))
        case .notAKey: return .failure(RefusedLine(refuse(.badArgument, usage)))
        }
    }

    /// A refused line, as a `Result`'s failure.
    struct RefusedLine: Error {
        let line: ParsedLine
        init(_ line: ParsedLine) { self.line = line }
    }

    package static let keyRule = "key must be 1 to \(Limits.maxKeyBytes) characters of A-Z a-z 0-9 . _ : -"

    enum KeyToken {
        case key(String)
        case malformed
        case notAKey
    }

    /// `key=<token>` (the `key=` in any case).
    func keyToken(_ token: UnsafeRawBufferPointer) -> KeyToken {
        guard token.count >= 4, equalsFolded(UnsafeRawBufferPointer(rebasing: token[0..<4]), Keywords.key) else { return .notAKey }
        let value = UnsafeRawBufferPointer(rebasing: token[4...])
        return Self.isValidKey(value) ? .key(text(value)) : .malformed
    }

    package func refuse(_ code: ErrorCode, _ message: String) -> ParsedLine {
        .refused(ProtocolError(code, message), close: false)
    }

    private func unknownFruit(_ name: UnsafeRawBufferPointer) -> ParsedLine {
        refuse(.unknownFruit, "no fruit named '\(Self.shown(name))', see STOCK")
    }

    /// Plain decimal digits only: no sign, no `0x`, no exponent. Any number of digits is read
    /// without overflow: past the range, it is simply out of range.
    package static func decimal(_ bytes: UnsafeRawBufferPointer, in range: ClosedRange<Int>) -> Int? {
        guard !bytes.isEmpty else { return nil }
        var value = 0
        var tooBig = false
        for b in bytes {
            guard b >= 0x30 && b <= 0x39 else { return nil }
            guard !tooBig else { continue }
            let (times10, o1) = value.multipliedReportingOverflow(by: 10)
            let (next, o2) = times10.addingReportingOverflow(Int(b - 0x30))
            if o1 || o2 || next > range.upperBound { tooBig = true } else { value = next }
        }
        return !tooBig && range.contains(value) ? value : nil
    }

    package static func isValidKey(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard (1...Limits.maxKeyBytes).contains(bytes.count) else { return false }
        for b in bytes {
            switch b {
            case 0x30...0x39, 0x41...0x5A, 0x61...0x7A, UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: ":"), UInt8(ascii: "-"):
                continue
            default:
                return false
            }
        }
        return true
    }

    /// A client's token, quoted back in an error message: at most 40 bytes, cut on a character.
    package static func shown(_ bytes: UnsafeRawBufferPointer) -> String {
        if bytes.count <= 40 { return text(bytes) }
        var end = 40
        while end > 0 && (bytes[end] & 0xC0) == 0x80 { end -= 1 }
        return text(UnsafeRawBufferPointer(rebasing: bytes[0..<end])) + "..."
    }
}

/// The whitespace-separated tokens of a line (spaces and tabs), found without allocating:
/// the first few are kept as ranges inline; a command never needs more than five.
package struct Tokens {
    private let line: UnsafeRawBufferPointer
    private var ranges: (Range<Int>, Range<Int>, Range<Int>, Range<Int>, Range<Int>, Range<Int>) =
        (0..<0, 0..<0, 0..<0, 0..<0, 0..<0, 0..<0)
    package private(set) var count = 0
    private var last: Range<Int> = 0..<0
    package static let kept = 6

    package init(_ line: UnsafeRawBufferPointer) {
        self.line = line
        var i = 0
        let n = line.count
        while i < n {
            while i < n && (line[i] == ASCII.space || line[i] == ASCII.tab) { i += 1 }
            if i == n { break }
            let start = i
            while i < n && line[i] != ASCII.space && line[i] != ASCII.tab { i += 1 }
            let range = start..<i
            if count < Tokens.kept {
                withUnsafeMutableBytes(of: &ranges) { raw in
                    raw.baseAddress!.assumingMemoryBound(to: Range<Int>.self)[count] = range
                }
            }
            last = range
            count += 1
        }
    }

    /// Token `index` (below `kept`). A line with more tokens than any command takes is refused
    /// by the argument count before a token past `kept` would be read.
    package subscript(index: Int) -> UnsafeRawBufferPointer {
        let range = withUnsafeBytes(of: ranges) { raw in
            raw.baseAddress!.assumingMemoryBound(to: Range<Int>.self)[Swift.min(index, Tokens.kept - 1)]
        }
        return UnsafeRawBufferPointer(rebasing: line[range])
    }

    /// `GET / HTTP/1.1`, `POST ...`, or a `Host:` header: somebody pointed a browser or an HTTP
    /// client at us (or a cross-protocol attack through one). Redis and memcached hang up too.
    package var looksLikeHTTP: Bool {
        let first = self[0]
        if equalsFolded(first, Keywords.host) { return true }
        guard count >= 2 else { return false }
        let lastToken = UnsafeRawBufferPointer(rebasing: line[last])
        guard lastToken.count >= 5, equalsFolded(UnsafeRawBufferPointer(rebasing: lastToken[0..<5]), Keywords.http) else {
            return false
        }
        return Tokens.httpMethods.contains { equalsFolded(first, $0) }
    }

    package static let httpMethods: [[UInt8]] = ["get", "post", "put", "head", "delete", "options", "connect", "patch", "trace"]
        .map { Array($0.utf8) }
}

/// Words the parser compares against, encoded once (not per line or per token).
private enum Keywords {
    package static let key: [UInt8] = Array("key=".utf8)
    package static let store: [UInt8] = Array("store=".utf8)
    package static let host: [UInt8] = Array("host:".utf8)
    package static let http: [UInt8] = Array("http/".utf8)
    package static let aliases: [UInt8] = Array("aliases".utf8)
    package static let prices: [UInt8] = Array("prices".utf8)
    package static let on: [UInt8] = Array("on".utf8)
    package static let off: [UInt8] = Array("off".utf8)
}

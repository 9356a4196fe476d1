// The client side of the wire: one line from juice-server v1, classified. Replies (`OK ...` /
// `ERR ...`) answer commands in order; lines starting with `EVENT` are unsolicited and may arrive
// between any two replies. `WireReader` parses the fields of particular replies; both read what
// `Wire` writes. For clients that read a line at a time (juice-board, tests, setup steps); the
// byte-level `WireReader.seq(in:)` is for per-line hot paths.

/// A stock change (or full snapshot): the fruits it touched, in the order the server sent them.
public struct StockUpdate: Equatable, Sendable {
    public var seq: Int
    public var values: [(fruit: String, count: Int)]

    public init(seq: Int, values: [(fruit: String, count: Int)]) {
        self.seq = seq
        self.values = values
    }

    public static func == (a: StockUpdate, b: StockUpdate) -> Bool {
        a.seq == b.seq && a.values.elementsEqual(b.values, by: { $0.fruit == $1.fruit && $0.count == $1.count })
    }

    /// Parses `seq=<n> fruit=value ...` (the fields after `EVENT STOCK` or `OK STOCK`, or after
    /// `OK ORDER <juice> <count>`).
    package static func parse(fields: [Substring]) -> StockUpdate? {
        guard let first = fields.first, first.hasPrefix("seq="),
              let seq = Int(first.dropFirst(4)) else { return nil }
        var values: [(fruit: String, count: Int)] = []
        for field in fields.dropFirst() where !field.isEmpty {
            guard let eq = field.firstIndex(of: "="),
                  let count = Int(field[field.index(after: eq)...]) else { return nil }
            let fruit = String(field[..<eq])
            guard !fruit.isEmpty else { return nil }
            values.append((fruit, count))
        }
        return StockUpdate(seq: seq, values: values)
    }
}

public enum ServerLine: Equatable, Sendable {
    case hello(String)                 // EVENT HELLO juice-server <version> ...
    case stockEvent(StockUpdate)       // EVENT STOCK seq=<n> fruit=value ...
    case bye(String)                   // EVENT BYE <reason>: the server is going away
    case otherEvent(String)            // an event this reader does not know
    case ok(verb: String, fields: [Substring])   // OK <VERB> ...
    case err(code: String, message: String)      // ERR <CODE> <msg>
    case unknown(String)

    public static func == (a: ServerLine, b: ServerLine) -> Bool {
        switch (a, b) {
        case let (.hello(x), .hello(y)), let (.bye(x), .bye(y)),
             let (.otherEvent(x), .otherEvent(y)), let (.unknown(x), .unknown(y)):
            return x == y
        case let (.stockEvent(x), .stockEvent(y)):
            return x == y
        case let (.ok(v1, f1), .ok(v2, f2)):
            return v1 == v2 && f1 == f2
        case let (.err(c1, m1), .err(c2, m2)):
            return c1 == c2 && m1 == m2
        default:
            return false
        }
    }

    /// Classifies one line; a trailing CR (the server ends lines with CRLF) is ignored.
    public static func parse(_ rawLine: String) -> ServerLine {
        var line = Substring(rawLine)
        while let last = line.last, last.isNewline { line = line.dropLast() } // "\r\n" is one Character
        let words = line.split(separator: " ", omittingEmptySubsequences: true)
        guard let head = words.first else { return .unknown(String(line)) }
        let rest = Array(words.dropFirst())
        switch head {
        case "EVENT":
            guard let kind = rest.first else { return .otherEvent(String(line)) }
            let text = rest.dropFirst().joined(separator: " ")
            switch kind {
            case "HELLO": return .hello(text)
            case "BYE": return .bye(text)
            case "STOCK":
                if let update = StockUpdate.parse(fields: Array(rest.dropFirst())) {
                    return .stockEvent(update)
                }
                return .unknown(String(line))
            default: return .otherEvent(String(line))
            }
        case "OK":
            guard let verb = rest.first else { return .ok(verb: "", fields: []) }
            return .ok(verb: String(verb), fields: Array(rest.dropFirst()))
        case "ERR":
            let code = rest.first.map(String.init) ?? ""
            return .err(code: code, message: rest.dropFirst().joined(separator: " "))
        default:
            return .unknown(String(line))
        }
    }
}

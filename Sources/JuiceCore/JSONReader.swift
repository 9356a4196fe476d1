/// A small strict JSON reader (RFC 8259) for the bodies of the HTTP write routes: a few
/// hundred bytes at most (bodies are capped at 4 KiB), read on bytes. Strict: one value and
/// only whitespace around it, no trailing commas, no comments, no leading zeros or `+`, strings
/// with valid escapes and no raw control characters, nesting at most `maxDepth` deep. Numbers
/// are kept as written (`.number("2")`): a route takes a whole number only if it is one.
package enum JSONValue: Equatable, Sendable {
    case object([(key: String, value: JSONValue)])
    case array([JSONValue])
    case string(String)
    case number(String)
    case bool(Bool)
    case null

    package static func == (a: JSONValue, b: JSONValue) -> Bool {
        switch (a, b) {
        case let (.object(x), .object(y)):
            return x.count == y.count && zip(x, y).allSatisfy { $0.key == $1.key && $0.value == $1.value }
        case let (.array(x), .array(y)): return x == y
        case let (.string(x), .string(y)), let (.number(x), .number(y)): return x == y
        case let (.bool(x), .bool(y)): return x == y
        case (.null, .null): return true
        default: return false
        }
    }

    /// A member of an object (keys are unique: the reader refuses a repeated one), or nil.
    package subscript(key: String) -> JSONValue? {
        guard case .object(let members) = self else { return nil }
        return members.first { $0.key == key }?.value
    }

    /// A whole number in -10^18...10^18 written without fraction or exponent, else nil.
    package var integer: Int? {
        guard case .number(let text) = self, text.utf8.count <= 19, !text.contains("."),
              !text.contains("e"), !text.contains("E") else { return nil }
        return Int(text)
    }
}

package struct JSONReader {
    package struct Failure: Error, Equatable, Sendable {
        package let message: String
    }

    package static let maxDepth = 16

    private let bytes: [UInt8]
    private var i = 0

    /// Parses a whole document, or says what is wrong with it (and where).
    package static func parse(_ bytes: [UInt8]) -> Result<JSONValue, Failure> {
        var reader = JSONReader(bytes: bytes)
        do throws(Failure) {
            reader.skipSpace()
            let value = try reader.value(depth: 0)
            reader.skipSpace()
            guard reader.i == bytes.count else { throw reader.fail("unexpected data after the JSON value") }
            return .success(value)
        } catch {
            return .failure(error)
        }
    }

    private init(bytes: [UInt8]) { self.bytes = bytes }

    private func fail(_ message: String) -> Failure { Failure(message: "\(message) at byte \(i)") }

    private mutating func skipSpace() {
        while i < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[i]) { i += 1 }
    }

    private mutating func value(depth: Int) throws(Failure) -> JSONValue {
        guard depth < JSONReader.maxDepth else { throw fail("nested too deep") }
        guard i < bytes.count else { throw fail("the JSON ends early") }
        switch bytes[i] {
        case UInt8(ascii: "{"): return try object(depth: depth)
        case UInt8(ascii: "["): return try array(depth: depth)
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"): try literal("true"); return .bool(true)
        case UInt8(ascii: "f"): try literal("false"); return .bool(false)
        case UInt8(ascii: "n"): try literal("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try number())
        default: throw fail("not a JSON value")
        }
    }

    private mutating func literal(_ word: String) throws(Failure) {
        let w = Array(word.utf8)
        guard bytes.count - i >= w.count, Array(bytes[i..<(i + w.count)]) == w else { throw fail("not a JSON value") }
        i += w.count
    }

    private mutating func object(depth: Int) throws(Failure) -> JSONValue {
        var members: [(key: String, value: JSONValue)] = []
        var keys: Set<String> = []
        try sequence(close: UInt8(ascii: "}")) { (r: inout JSONReader) throws(Failure) in
            guard r.i < r.bytes.count, r.bytes[r.i] == UInt8(ascii: "\"") else { throw r.fail("expected a member name") }
            let key = try r.string()
            // Parsers disagree on which of two same-named members wins (the first, the last, an
            // error): a body that two readers could read differently is refused.
            guard keys.insert(key).inserted else { throw r.fail("member \(JSONText.string(key)) appears twice") }
            r.skipSpace()
            guard r.i < r.bytes.count, r.bytes[r.i] == UInt8(ascii: ":") else { throw r.fail("expected ':'") }
            r.i += 1
            r.skipSpace()
            members.append((key, try r.value(depth: depth + 1)))
        }
        return .object(members)
    }

    private mutating func array(depth: Int) throws(Failure) -> JSONValue {
        var elements: [JSONValue] = []
        try sequence(close: UInt8(ascii: "]")) { (r: inout JSONReader) throws(Failure) in elements.append(try r.value(depth: depth + 1)) }
        return .array(elements)
    }

    /// The elements of an object or array (after its opening bracket), separated by commas, up
    /// to `close`; no trailing comma.
    private mutating func sequence(close: UInt8, _ element: (inout JSONReader) throws(Failure) -> Void) throws(Failure) {
        i += 1
        skipSpace()
        if i < bytes.count, bytes[i] == close { i += 1; return }
        while true {
            skipSpace()
            try element(&self)
            skipSpace()
            guard i < bytes.count else { throw fail("the JSON ends early") }
            if bytes[i] == UInt8(ascii: ",") { i += 1; continue }
            guard bytes[i] == close else { throw fail("expected ',' or '\(Character(Unicode.Scalar(close)))'") }
            i += 1
            return
        }
    }

    private mutating func number() throws(Failure) -> String {
        let start = i
        if bytes[i] == UInt8(ascii: "-") { i += 1 }
        guard i < bytes.count, isDigit(bytes[i]) else { throw fail("malformed number") }
        if bytes[i] == UInt8(ascii: "0") { i += 1 } else { while i < bytes.count, isDigit(bytes[i]) { i += 1 } }
        if i < bytes.count, bytes[i] == UInt8(ascii: ".") {
            i += 1
            guard i < bytes.count, isDigit(bytes[i]) else { throw fail("malformed number") }
            while i < bytes.count, isDigit(bytes[i]) { i += 1 }
        }
        if i < bytes.count, bytes[i] == UInt8(ascii: "e") || bytes[i] == UInt8(ascii: "E") {
            i += 1
            if i < bytes.count, bytes[i] == UInt8(ascii: "+") || bytes[i] == UInt8(ascii: "-") { i += 1 }
            guard i < bytes.count, isDigit(bytes[i]) else { throw fail("malformed number") }
            while i < bytes.count, isDigit(bytes[i]) { i += 1 }
        }
        return String(decoding: bytes[start..<i], as: UTF8.self)
    }

    private func isDigit(_ b: UInt8) -> Bool { b >= 0x30 && b <= 0x39 }

    /// A string literal; the bytes between escapes must be valid UTF-8.
    private mutating func string() throws(Failure) -> String {
        i += 1
        var out: [UInt8] = []
        while true {
            guard i < bytes.count else { throw fail("unterminated string") }
            let b = bytes[i]
            i += 1
            switch b {
            case UInt8(ascii: "\""):
                guard let text = String(validating: out, as: UTF8.self) else { throw fail("a string is not valid UTF-8") }
                return text
            case UInt8(ascii: "\\"):
                guard i < bytes.count else { throw fail("unterminated string") }
                let e = bytes[i]
                i += 1
                switch e {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): out.append(e)
                case UInt8(ascii: "b"): out.append(8)
                case UInt8(ascii: "f"): out.append(12)
                case UInt8(ascii: "n"): out.append(10)
                case UInt8(ascii: "r"): out.append(13)
                case UInt8(ascii: "t"): out.append(9)
                case UInt8(ascii: "u"): out.append(contentsOf: try unicodeEscape())
                default: throw fail("bad escape in a string")
                }
            case 0..<0x20:
                throw fail("a control character in a string")
            default:
                out.append(b)
            }
        }
    }

    /// `\uXXXX` (after the `u`), with a surrogate pair as two escapes; UTF-8 out.
    private mutating func unicodeEscape() throws(Failure) -> [UInt8] {
        var scalar = try hex4()
        if (0xD800...0xDBFF).contains(scalar) {
            guard bytes.count - i >= 6, bytes[i] == UInt8(ascii: "\\"), bytes[i + 1] == UInt8(ascii: "u") else {
                throw fail("a lone surrogate in a string")
            }
            i += 2
            let low = try hex4()
            guard (0xDC00...0xDFFF).contains(low) else { throw fail("a lone surrogate in a string") }
            scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
        } else if (0xDC00...0xDFFF).contains(scalar) {
            throw fail("a lone surrogate in a string")
        }
        guard let u = Unicode.Scalar(scalar) else { throw fail("bad escape in a string") }
        return Array(String(Character(u)).utf8)
    }

    private mutating func hex4() throws(Failure) -> UInt32 {
        guard bytes.count - i >= 4 else { throw fail("bad escape in a string") }
        var v: UInt32 = 0
        for _ in 0..<4 {
            let b = bytes[i]
            i += 1
            let d: UInt8
            switch b {
            case 0x30...0x39: d = b - 0x30
            case 0x41...0x46: d = b - 0x41 + 10
            case 0x61...0x66: d = b - 0x61 + 10
            default: throw fail("bad escape in a string")
            }
            v = v << 4 | UInt32(d)
        }
        return v
    }
}

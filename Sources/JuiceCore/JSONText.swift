/// A tiny JSON writer for the few small documents the server serves over HTTP (`/state`,
/// `/sales`). Hand-written rather than `JSONEncoder` so that keys come out in the order the
/// contract shows them, and so that no Foundation sits on the request path. Values are composed
/// from already-encoded JSON texts: `JSONText.object([("seq", JSONText.number(3))])`.
package enum JSONText {
    /// A JSON string literal: `"` and `\` escaped, control characters (U+0000-U+001F) as
    /// `\u00XX`, and U+2028/U+2029 as `\u2028`/`\u2029` (valid JSON, but they end a line in
    /// older JavaScript, and a page may inline a document). Everything else, non-ASCII
    /// included, is written as UTF-8.
    package static func string(_ s: String) -> String {
        var out = "\""
        out.reserveCapacity(s.utf8.count + 2)
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\u{2028}": out += "\\u2028"
            case "\u{2029}": out += "\\u2029"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default:
                out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }

    package static func number<N: BinaryInteger>(_ n: N) -> String { String(n) }

    /// `[a,b,...]` from encoded elements.
    package static func array(_ elements: [String]) -> String {
        "[" + elements.joined(separator: ",") + "]"
    }

    /// `{"k":v,...}` from keys and encoded values, in the order given.
    package static func object(_ members: [(String, String)]) -> String {
        "{" + members.map { string($0.0) + ":" + $0.1 }.joined(separator: ",") + "}"
    }

    package static func strings(_ list: [String]) -> String { array(list.map(string)) }

    // MARK: Bytes, for the event stream's hot path

    /// `"name":`, encoded once (e.g. per fruit of the menu) for `appendObject`.
    package static func memberKey(_ name: String) -> [UInt8] {
        Array((string(name) + ":").utf8)
    }

    /// Appends `{"k":n,...}`: the byte form of `object` for whole-number members whose keys
    /// were encoded with `memberKey`, building no String (one per event sent would show).
    @inlinable
    package static func appendObject<Members: Sequence>(_ members: Members, key: (Members.Element) -> [UInt8],
                                                       value: (Members.Element) -> Int, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "{"))
        var first = true
        for member in members {
            if !first { out.append(UInt8(ascii: ",")) }
            first = false
            out.append(contentsOf: key(member))
            out.append(decimal: value(member))
        }
        out.append(UInt8(ascii: "}"))
    }
}

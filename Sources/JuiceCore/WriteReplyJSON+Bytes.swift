/// The byte form of `WriteReplyJSON.answer`, for the `POST /orders` hot path: it reads the reply
/// bytes the store wrote and writes the JSON answer as bytes, with no String, Substring or
/// array of words per request (the String form spent a quarter of the server's CPU under S7:
/// splitting, joining, re-parsing the line, then concatenating JSON).
///
/// It answers exactly what the String form answers, byte for byte (`WriteReplyJSONBytesTests`
/// compares the two on many lines):
/// - only an all-ASCII `OK` reply takes the byte path; a refusal (rare, and carrying a
///   message) and any line with a non-ASCII byte go through the String form, so Unicode line
///   ends, invalid UTF-8 and grapheme rules stay the String form's alone;
/// - words are split on spaces with empty words dropped, like `split(separator: " ")`;
/// - a value is taken where `Int(_:)` would take it (optional sign, digits, no overflow) and
///   written back as `JSONText.number` writes it; an ORDER's count is copied as written.
extension WriteReplyJSON {
    /// The outcome and JSON bytes for one reply as the store wrote it (line end included).
    public static func answer(toReply reply: [UInt8], keyed: Bool = false) -> (outcome: Outcome, json: [UInt8]) {
        if let json = reply.withUnsafeBytes({ okAnswer($0, keyed: keyed) }) { return (.ok, json) }
        var line = String(decoding: reply, as: UTF8.self)
        while line.last?.isNewline == true { line.removeLast() }
        let (outcome, json) = answer(toReply: line, keyed: keyed)
        return (outcome, Array(json.utf8))
    }

    /// The JSON of an all-ASCII `OK ...` reply, or nil for anything else.
    private static func okAnswer(_ raw: UnsafeRawBufferPointer, keyed: Bool) -> [UInt8]? {
        var end = raw.count
        // The ASCII characters that are `isNewline`: LF, VT, FF, CR.
        while end > 0, raw[end - 1] >= 0x0A && raw[end - 1] <= 0x0D { end -= 1 }
        for i in 0..<end where raw[i] >= 0x80 { return nil }
        // Word boundaries, at most a few dozen (a reply names each fruit once).
        var words = Words(raw, end: end)
        guard let head = words.next(), equals(raw, head, "OK") else { return nil }
        var all: [Range<Int>] = []
        all.reserveCapacity(16)
        while let word = words.next() { all.append(word) }
        let dup = all.last.map { equals(raw, $0, "dup") } ?? false
        if dup { all.removeLast() }
        var out: [UInt8] = []
        out.reserveCapacity(128)
        out.append(ascii: "{\"ok\":true")
        if all.count >= 4, equals(raw, all[0], "ORDER") {
            out.append(ascii: ",\"juice\":")
            appendString(raw, all[1], to: &out)
            out.append(ascii: ",\"count\":")
            out.append(contentsOf: UnsafeRawBufferPointer(rebasing: raw[all[2]]))
            appendSeqAndStock(raw, all[3...], to: &out)
            out.append(ascii: dup ? ",\"dup\":true}" : ",\"dup\":false}")
        } else {
            appendSeqAndStock(raw, all.dropFirst(), to: &out)
            if keyed || dup { out.append(ascii: dup ? ",\"dup\":true" : ",\"dup\":false") }
            out.append(UInt8(ascii: "}"))
        }
        return out
    }

    /// `,"seq":N,"stock":{"fruit":n,...}` from `seq=N fruit=n ...`: fields without `=` (or
    /// starting with it) or without a number are skipped; the last `seq` wins, 0 if none.
    private static func appendSeqAndStock(_ raw: UnsafeRawBufferPointer, _ fields: ArraySlice<Range<Int>>, to out: inout [UInt8]) {
        var seq = 0
        var stock: [UInt8] = []
        for field in fields {
            guard let eq = raw[field].firstIndex(of: UInt8(ascii: "=")), eq != field.lowerBound,
                  let n = integer(raw, (eq + 1)..<field.upperBound) else { continue }
            if equals(raw, field.lowerBound..<eq, "seq") {
                seq = n
            } else {
                if !stock.isEmpty { stock.append(UInt8(ascii: ",")) }
                appendString(raw, field.lowerBound..<eq, to: &stock)
                stock.append(UInt8(ascii: ":"))
                stock.append(decimal: n)
            }
        }
        out.append(ascii: ",\"seq\":")
        out.append(decimal: seq)
        out.append(ascii: ",\"stock\":{")
        out.append(contentsOf: stock)
        out.append(UInt8(ascii: "}"))
    }

    /// `JSONText.string` for ASCII bytes: `"` and `\` escaped, control characters as `\u00xx`.
    private static func appendString(_ raw: UnsafeRawBufferPointer, _ range: Range<Int>, to out: inout [UInt8]) {
        let hex: StaticString = "0123456789abcdef"
        out.append(UInt8(ascii: "\""))
        for b in raw[range] {
            switch b {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"):
                out.append(UInt8(ascii: "\\"))
                out.append(b)
            case 0..<0x20:
                out.append(ascii: "\\u00")
                out.append(hex.utf8Start[Int(b >> 4)])
                out.append(hex.utf8Start[Int(b & 0x0F)])
            default:
                out.append(b)
            }
        }
        out.append(UInt8(ascii: "\""))
    }

    /// What `Int(String)` makes of these bytes: an optional `+` or `-`, then at least one digit,
    /// within Int's range; else nil.
    private static func integer(_ raw: UnsafeRawBufferPointer, _ range: Range<Int>) -> Int? {
        var i = range.lowerBound
        let negative = i < range.upperBound && raw[i] == UInt8(ascii: "-")
        if i < range.upperBound, raw[i] == UInt8(ascii: "-") || raw[i] == UInt8(ascii: "+") { i += 1 }
        guard i < range.upperBound else { return nil }
        var value = 0
        while i < range.upperBound {
            let digit = Int(raw[i]) - 48
            guard digit >= 0 && digit <= 9 else { return nil }
            let (times, o1) = value.multipliedReportingOverflow(by: 10)
            let (next, o2) = negative ? times.subtractingReportingOverflow(digit) : times.addingReportingOverflow(digit)
            guard !o1 && !o2 else { return nil }
            value = next
            i += 1
        }
        return value
    }

    private static func equals(_ raw: UnsafeRawBufferPointer, _ range: Range<Int>, _ word: StaticString) -> Bool {
        range.count == word.utf8CodeUnitCount && raw[range].elementsEqual(UnsafeBufferPointer(start: word.utf8Start, count: range.count))
    }

    /// The space-separated words of `raw[..<end]`, empty ones skipped.
    private struct Words {
        let raw: UnsafeRawBufferPointer
        let end: Int
        var i = 0
        init(_ raw: UnsafeRawBufferPointer, end: Int) {
            self.raw = raw
            self.end = end
        }

        mutating func next() -> Range<Int>? {
            while i < end && raw[i] == ASCII.space { i += 1 }
            guard i < end else { return nil }
            let start = i
            while i < end && raw[i] != ASCII.space { i += 1 }
            return start..<i
        }
    }
}

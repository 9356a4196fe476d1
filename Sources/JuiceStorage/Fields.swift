import JuiceCore
import JuiceDomain
import JuicePlatform
import JuiceLog

/// A payload's fields, each checked on its bytes.
package struct Fields {
    package typealias Defect = JournalRecord.Defect
    package let tokens: [ArraySlice<UInt8>]

    package init(_ tokens: [ArraySlice<UInt8>]) {
        self.tokens = tokens
    }

    package var tag: String { tokens[0].count == 1 ? String(decoding: tokens[0], as: UTF8.self) : "" }

    /// `@<unix seconds>`: a canonical decimal within `JournalRecord.times`.
    package func time(_ i: Int) throws(Defect) -> Int64 {
        let t = tokens[i]
        let range = JournalRecord.times
        guard t.first == UInt8(ascii: "@"), let value = Fields.decimal(t.dropFirst()), value <= UInt64(range.upperBound) else {
            throw Defect("time '\(Fields.shown(t))' is not @<unix seconds from \(range.lowerBound) to \(range.upperBound)>")
        }
        return Int64(value)
    }

    /// `+HHMM` or `-HHMM` within `JournalRecord.offsets`.
    package func offset(_ i: Int) throws(Defect) -> Int32 {
        let t = Array(tokens[i])
        let digits = t.dropFirst()
        guard t.count == 5, t[0] == UInt8(ascii: "+") || t[0] == UInt8(ascii: "-"), digits.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else {
            throw Defect("'\(Fields.shown(tokens[i]))' is not a UTC offset +HHMM")
        }
        let n = digits.map { Int32($0 - 0x30) }
        let hours = n[0] * 10 + n[1], minutes = n[2] * 10 + n[3]
        let seconds = (hours * 3600 + minutes * 60) * (t[0] == UInt8(ascii: "-") ? -1 : 1)
        guard minutes < 60, JournalRecord.offsets.contains(seconds), !(seconds == 0 && t[0] == UInt8(ascii: "-")) else {
            throw Defect("'\(Fields.shown(tokens[i]))' is not a UTC offset +HHMM")
        }
        return seconds
    }

    /// `<k>:<name>=<n>` from field `i` to the end: a known letter, a name, a counter of at least 1;
    /// the kinds in the writer's order (`Kind.allCases`), each name once per kind (a repeat was
    /// taken silently, the last one winning).
    package func hourCounts(from i: Int) throws(Defect) -> [JournalRecord.HourCount] {
        var list: [JournalRecord.HourCount] = []
        var seen = Set<String>()
        for t in tokens[i...] {
            guard t.count >= 4, t[t.startIndex + 1] == UInt8(ascii: ":"),
                  let kind = SalesHistory.Counters.Kind(letter: Character(Unicode.Scalar(t[t.startIndex]))) else {
                throw Defect("'\(Fields.shown(t))' is not <kind>:<name>=<count>")
            }
            let parts = t.dropFirst(2).split(separator: UInt8(ascii: "="), omittingEmptySubsequences: false)
            guard parts.count == 2, let value = Fields.decimal(parts[1]), value >= 1, value <= JournalRecord.maxCounter else {
                throw Defect("'\(Fields.shown(t))' is not <kind>:<name>=<count from 1>")
            }
            let count = JournalRecord.HourCount(kind, try Fields.name(parts[0]), value)
            guard (list.last?.kind.rawValue ?? 0) <= kind.rawValue, seen.insert(String(kind.letter) + count.name).inserted else {
                throw Defect("'\(Fields.shown(t))' repeats a counter or is out of the order s, l, t, u, a, e, o")
            }
            list.append(count)
        }
        return list
    }

    package func count(exactly n: Int) throws(Defect) {
        guard tokens.count == n else { throw Defect("\(tokens.count) fields, not \(n)") }
    }

    package func count(atLeast n: Int) throws(Defect) {
        guard tokens.count >= n else { throw Defect("\(tokens.count) fields, not at least \(n)") }
    }

    /// A canonical decimal: digits only, no leading zero, within `range`.
    package func number(_ i: Int, _ what: String, _ range: ClosedRange<UInt64>) throws(Defect) -> UInt64 {
        guard let value = Fields.decimal(tokens[i]), range.contains(value) else {
            throw Defect("\(what) '\(Fields.shown(tokens[i]))' is not a number from \(range.lowerBound) to \(range.upperBound)")
        }
        return value
    }

    package func int(_ i: Int, _ what: String, _ range: ClosedRange<Int>) throws(Defect) -> Int {
        Int(try number(i, what, UInt64(range.lowerBound)...UInt64(range.upperBound)))
    }

    package static func decimal(_ t: ArraySlice<UInt8>) -> UInt64? {
        guard !t.isEmpty, t.count == 1 || t.first != UInt8(ascii: "0") else { return nil }
        var value: UInt64 = 0
        for b in t {
            guard b >= 0x30 && b <= 0x39 else { return nil }
            let (times10, o1) = value.multipliedReportingOverflow(by: 10)
            let (next, o2) = times10.addingReportingOverflow(UInt64(b - 0x30))
            guard !o1 && !o2 else { return nil }
            value = next
        }
        return value
    }

    package func name(_ i: Int) throws(Defect) -> String {
        try Fields.name(tokens[i])
    }

    package static func name(_ t: ArraySlice<UInt8>) throws(Defect) -> String {
        guard let name = String(validating: t, as: UTF8.self), NameRule.wellFormedProblem(name) == nil else {
            throw Defect("'\(shown(t))' is not a name")
        }
        return name
    }

    /// `-` or `key=<key>`.
    package func orderKey(_ i: Int) throws(Defect) -> String? {
        let t = tokens[i]
        if t.elementsEqual([UInt8(ascii: "-")]) { return nil }
        guard t.starts(with: Array("key=".utf8)) else { throw Defect("'\(Fields.shown(t))' is neither - nor key=<key>") }
        return try Fields.key(t.dropFirst(4))
    }

    package func key(_ i: Int) throws(Defect) -> String {
        try Fields.key(tokens[i])
    }

    package static func key(_ t: ArraySlice<UInt8>) throws(Defect) -> String {
        let valid = t.withUnsafeBytes { CommandParser.isValidKey($0) }
        guard valid else { throw Defect("'\(shown(t))' is not an order key") }
        return String(decoding: t, as: UTF8.self)
    }

    /// `<name>=<stock>` from field `i` to the end, at least one.
    package func values(from i: Int) throws(Defect) -> [JournalRecord.NamedValue] {
        var list: [JournalRecord.NamedValue] = []
        for t in tokens[i...] {
            let parts = t.split(separator: UInt8(ascii: "="), omittingEmptySubsequences: false)
            guard parts.count == 2, let value = Fields.decimal(parts[1]), value <= UInt64(Limits.maxStock) else {
                throw Defect("'\(Fields.shown(t))' is not <fruit>=<stock 0 to \(Limits.maxStock)>")
            }
            list.append(JournalRecord.NamedValue(try Fields.name(parts[0]), Int(value)))
        }
        return list
    }

    /// The reply a keyed write got, as the store wrote it: `OK ORDER ...` or
    /// `ERR OUT_OF_STOCK ...` for an order, `OK RESTOCK ...` or `OK SET ...`; text without
    /// control characters (it is sent again, as a line, to a retrying till).
    package func reply(_ i: Int, answering write: JournalRecord.KeyedWrite) throws(Defect) -> String {
        let t = tokens[i]
        let text = t.withUnsafeBytes { LineCheck.problem(in: $0) == nil && !$0.contains(ASCII.tab) }
        let starts: [String] = switch write {
        case .order: ["OK ORDER ", "ERR OUT_OF_STOCK "]
        case .restock: ["OK RESTOCK "]
        case .set: ["OK SET "]
        }
        guard text, let reply = String(validating: t, as: UTF8.self), starts.contains(where: { reply.hasPrefix($0) }) else {
            throw Defect("'\(Fields.shown(t))' is not \(write == .order ? "an" : "a") \(write.rawValue) reply")
        }
        return reply
    }

    /// A field quoted in a message: printable ASCII as is, anything else as \xNN, at most 40 bytes.
    package static func shown(_ t: ArraySlice<UInt8>) -> String {
        var out = ""
        for b in t.prefix(40) {
            if b >= 0x21 && b <= 0x7E && b != UInt8(ascii: "'") && b != UInt8(ascii: "\\") {
                out.unicodeScalars.append(Unicode.Scalar(b))
            } else {
                out += "\\x" + (b < 16 ? "0" : "") + String(b, radix: 16, uppercase: true)
            }
        }
        return t.count > 40 ? out + "..." : out
    }

    /// A remembered key's write at `i` (`ORDER`, `RESTOCK`, `SET`), and its number at `j`: a
    /// count, an amount or a value, each in its own range.
    package func keyedWrite(_ i: Int, number j: Int) throws(Defect) -> (write: JournalRecord.KeyedWrite, number: Int) {
        guard let write = JournalRecord.KeyedWrite(rawValue: String(decoding: tokens[i], as: UTF8.self)) else {
            throw Defect("'\(Fields.shown(tokens[i]))' is not ORDER, RESTOCK or SET")
        }
        let number = switch write {
        case .order: try int(j, "count", 1...Limits.maxOrderCount)
        case .restock: try int(j, "amount", 1...Limits.maxStock)
        case .set: try int(j, "value", 0...Limits.maxStock)
        }
        return (write, number)
    }
}

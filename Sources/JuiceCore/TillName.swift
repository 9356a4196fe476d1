/// What a till's name must be: 1 to 40 bytes of UTF-8 text with no control character and no
/// `|`, not starting or ending with a space (it is the last field of its record and of its
/// section of `OK TILLS`, whose sections `|` separates, and a person reads it on a page and a
/// terminal).
package enum TillName {
    package static let maxBytes = 40

    package static func problem(_ name: String) -> String? {
        guard (1...maxBytes).contains(name.utf8.count) else { return "a till's name is 1 to \(maxBytes) bytes" }
        guard !name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control || $0 == "\u{2028}" || $0 == "\u{2029}" })
        else { return "a till's name has no control characters" }
        guard name.first != " ", name.last != " " else { return "a till's name does not start or end with a space" }
        guard !name.contains("|") else { return "a till's name has no | (it separates the tills in OK TILLS)" }
        return nil
    }
}

import Foundation

/// What a fruit or juice name (or alias) must be. A name travels as one token through every
/// place names go, and must come back out of each as the same bytes:
///
/// - the wire: a client sends it as a token (split on space and tab bytes, controls refused);
///   the server matches it byte for byte, ASCII letters folded (`NameTable`);
/// - replies and events, in `name=value`, `juice=fruit:amount+fruit:amount` and
///   `name=alias,alias` forms, which clients such as juice-board split on Characters;
/// - journal and snapshot records, split on the space byte (`RecordParser`);
/// - `menu.json`, through JSON.
///
/// Hence: 1 to 64 bytes; no white space, control character, or `= : + ,` (the separators);
/// it must stand apart from a separator beside it, as its own Characters (a name that begins
/// with a combining mark, ZWJ or variation selector merges with the character before it, one
/// that ends with a prepended concatenation mark with the one after it); and it must be in
/// Unicode NFC, so that String equality (canonical equivalence) and byte equality agree and a
/// name typed on a keyboard (composed) matches the bytes the server holds.
package enum NameRule {
    package static let maxBytes = 64

    /// The full rule, checked when a menu is loaded: a message, or nil if `name` is fine.
    package static func problem(_ name: String) -> String? {
        if let problem = wellFormedProblem(name) { return problem }
        for separator in ["=", ":", "+", ",", " "] {
            let joined = separator + name + separator
            if joined.first != Character(separator), let first = name.unicodeScalars.first {
                return "the name \"\(name)\" begins with \(code(first)), which joins the character before it; start the name with a letter, digit or symbol"
            }
            if joined.last != Character(separator), let last = name.unicodeScalars.last {
                return "the name \"\(name)\" ends with \(code(last)), which joins the character after it"
            }
        }
        guard name.precomposedStringWithCanonicalMapping.utf8.elementsEqual(name.utf8) else {
            return "the name \"\(name)\" is not in Unicode NFC (composed) form; names are matched byte for byte, so write it composed"
        }
        return nil
    }

    /// What every version of the server has required of a name: a record naming anything else
    /// was not written by juice-server. (A menu name must also pass `problem`; a record may still
    /// name something an older menu allowed, which replay skips when the menu no longer has it.)
    package static func wellFormedProblem(_ name: String) -> String? {
        guard !name.isEmpty else { return "a name is empty" }
        guard name.utf8.count <= maxBytes else { return "the name \"\(name)\" is longer than \(maxBytes) bytes" }
        for scalar in name.unicodeScalars {
            let v = scalar.value
            if v <= 0x20 || v == 0x7F || (0x80...0x9F).contains(v) || "=:+,".unicodeScalars.contains(scalar)
                || scalar.properties.isWhitespace {
                return "the name \"\(name)\" may not contain spaces, control characters or any of = : + ,"
            }
        }
        return nil
    }

    private static func code(_ scalar: Unicode.Scalar) -> String {
        let hex = String(scalar.value, radix: 16, uppercase: true)
        return "U+" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
    }
}

import JuicePlatform
/// A message made safe for one log line. Log lines quote what clients send (a `Host`, an
/// `Origin`, a name), and a terminal or log viewer obeys some characters instead of showing
/// them: a C0 or C1 control (U+0000–U+001F, U+007F, U+0080–U+009F: a line feed forges a second
/// line, ESC or U+009B starts a terminal command) or a bidirectional override (U+202A–U+202E,
/// U+2066–U+2069: shown text reads in another order than it is written). Each is written as
/// `\u{XX}` instead, so a line shows exactly what was sent. Applied by `Log` to every message,
/// so no call site can forget it; the server's own text holds none of them.
package enum LogText {
    package static func escaped(_ message: String) -> String {
        // Almost every line is printable ASCII: nothing to look at scalar by scalar.
        if message.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) { return message }
        var out = String.UnicodeScalarView()
        for scalar in message.unicodeScalars {
            if isHidden(scalar) {
                out.append(contentsOf: "\\u{\(String(scalar.value, radix: 16, uppercase: true))}".unicodeScalars)
            } else {
                out.append(scalar)
            }
        }
        return String(out)
    }

    /// Whether a terminal would act on the character rather than show it.
    package static func isHidden(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F, 0x202A...0x202E, 0x2066...0x2069: true
        default: false
        }
    }
}

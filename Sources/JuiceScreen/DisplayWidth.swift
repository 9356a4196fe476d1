// Terminal display width of text: how many columns a string takes on screen.
//
// Hangul and other East Asian wide characters take two columns, combining marks take none.
// Alignment and truncation must count columns, not Characters or bytes, or Korean names
// would push the stock numbers out of line.

public enum DisplayWidth {
    /// Columns one Unicode scalar takes: 0 (combining/format/control), 1, or 2 (wide).
    public static func columns(of scalar: Unicode.Scalar) -> Int {
        let v = scalar.value
        if v == 0 { return 0 }
        if v < 0x20 || (v >= 0x7F && v < 0xA0) { return 0 }
        switch scalar.properties.generalCategory {
        case .nonspacingMark, .enclosingMark, .format: return 0
        default: break
        }
        if v == 0x200B || (v >= 0x1160 && v <= 0x11FF) { return 0 } // zero width space, Hangul medial/final jamo
        return isWide(v) ? 2 : 1
    }

    /// Columns one grapheme cluster takes. A cluster is as wide as its widest scalar,
    /// and an emoji presentation selector (U+FE0F) makes it two columns.
    public static func columns(of character: Character) -> Int {
        var width = 0
        for scalar in character.unicodeScalars {
            if scalar.value == 0xFE0F { return 2 }
            width = max(width, columns(of: scalar))
        }
        return width
    }

    public static func columns(of text: String) -> Int {
        text.reduce(0) { $0 + columns(of: $1) }
    }

    /// The longest prefix of `text` that fits in `width` columns. When the text had to be cut,
    /// the last column shows "…" so the reader can tell.
    public static func truncate(_ text: String, to width: Int) -> String {
        guard width > 0 else { return "" }
        if columns(of: text) <= width { return text }
        var result = ""
        var used = 0
        for character in text {
            let w = columns(of: character)
            if used + w > width - 1 { break }
            result.append(character)
            used += w
        }
        return result + "…"
    }

    /// `text` cut or padded with spaces on the right to exactly `width` columns.
    public static func padRight(_ text: String, to width: Int) -> String {
        let cut = truncate(text, to: width)
        return cut + String(repeating: " ", count: max(0, width - columns(of: cut)))
    }

    /// `text` cut or padded with spaces on the left to exactly `width` columns (numbers).
    public static func padLeft(_ text: String, to width: Int) -> String {
        let cut = truncate(text, to: width)
        return String(repeating: " ", count: max(0, width - columns(of: cut))) + cut
    }

    // East Asian Wide (W) and Fullwidth (F) ranges, plus the emoji blocks terminals draw wide.
    private static func isWide(_ v: UInt32) -> Bool {
        switch v {
        case 0x1100...0x115F,   // Hangul Jamo initial consonants
             0x231A...0x231B, 0x2329...0x232A, 0x23E9...0x23EC, 0x23F0, 0x23F3,
             0x25FD...0x25FE, 0x2614...0x2615, 0x2648...0x2653, 0x267F, 0x2693, 0x26A1,
             0x26AA...0x26AB, 0x26BD...0x26BE, 0x26C4...0x26C5, 0x26CE, 0x26D4, 0x26EA,
             0x26F2...0x26F3, 0x26F5, 0x26FA, 0x26FD, 0x2705, 0x270A...0x270B, 0x2728,
             0x274C, 0x274E, 0x2753...0x2755, 0x2757, 0x2795...0x2797, 0x27B0, 0x27BF,
             0x2B1B...0x2B1C, 0x2B50, 0x2B55,
             0x2E80...0x303E,   // CJK radicals, punctuation
             0x3041...0x33FF,   // Hiragana, Katakana, Bopomofo, Hangul compatibility jamo, CJK symbols
             0x3400...0x4DBF,   // CJK extension A
             0x4E00...0x9FFF,   // CJK unified ideographs
             0xA000...0xA4CF,   // Yi
             0xA960...0xA97F,   // Hangul Jamo extended A
             0xAC00...0xD7A3,   // Hangul syllables
             0xF900...0xFAFF,   // CJK compatibility ideographs
             0xFE10...0xFE19, 0xFE30...0xFE6F,
             0xFF00...0xFF60, 0xFFE0...0xFFE6, // fullwidth forms
             0x16FE0...0x18CFF, 0x1B000...0x1B2FF,
             0x1F004, 0x1F0CF, 0x1F18E, 0x1F191...0x1F19A, 0x1F200...0x1F251,
             0x1F300...0x1F320, 0x1F32D...0x1F335, 0x1F337...0x1F37C, 0x1F37E...0x1F393,
             0x1F3A0...0x1F3CA, 0x1F3CF...0x1F3D3, 0x1F3E0...0x1F3F0, 0x1F3F4, 0x1F3F8...0x1F43E,
             0x1F440, 0x1F442...0x1F4FC, 0x1F4FF...0x1F53D, 0x1F54B...0x1F54E, 0x1F550...0x1F567,
             0x1F57A, 0x1F595...0x1F596, 0x1F5A4, 0x1F5FB...0x1F64F, 0x1F680...0x1F6C5,
             0x1F6CC, 0x1F6D0...0x1F6D2, 0x1F6D5...0x1F6D7, 0x1F6EB...0x1F6EC, 0x1F6F4...0x1F6FC,
             0x1F7E0...0x1F7EB, 0x1F90C...0x1F93A, 0x1F93C...0x1F945, 0x1F947...0x1F9FF,
             0x1FA70...0x1FAFF,
             0x20000...0x2FFFD, 0x30000...0x3FFFD: // CJK extensions B and beyond
            return true
        default:
            return false
        }
    }
}

extension String {
    /// Control characters (C0, DEL, C1) replaced by "?": names come from the network, and an
    /// ESC inside a fruit alias must never reach the terminal as an escape sequence.
    public var sanitizedForTerminal: String {
        String(String.UnicodeScalarView(unicodeScalars.map { scalar in
            let v = scalar.value
            return (v < 0x20 || (v >= 0x7F && v < 0xA0)) ? "?" : scalar
        }))
    }
}

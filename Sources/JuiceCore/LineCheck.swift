/// Checks that a line is text the protocol accepts: valid UTF-8 without control characters
/// (tab aside). Escape sequences (ESC ...) and NUL bytes are control characters.
package enum LineCheck {
    package static func problem(in line: UnsafeRawBufferPointer) -> String? {
        var i = 0
        let n = line.count
        while i < n {
            let b = line[i]
            if b < 0x80 {
                if (b < 0x20 && b != ASCII.tab) || b == 0x7F {
                    return "the line holds a control character (byte \(b)); send plain text"
                }
                i += 1
                continue
            }
            guard let length = scalarLength(line, at: i) else {
                return "the line is not valid UTF-8"
            }
            // C1 controls, U+0080...U+009F, are encoded as C2 80...C2 9F.
            if b == 0xC2 && line[i + 1] <= 0x9F {
                return "the line holds a control character (U+00\(String(line[i + 1], radix: 16, uppercase: true))); send plain text"
            }
            i += length
        }
        return nil
    }

    /// The length of the well-formed UTF-8 sequence at `i` (RFC 3629: no overlongs, no
    /// surrogates, nothing above U+10FFFF), or nil.
    private static func scalarLength(_ s: UnsafeRawBufferPointer, at i: Int) -> Int? {
        let b0 = s[i]
        let n = s.count
        func cont(_ k: Int, _ low: UInt8 = 0x80, _ high: UInt8 = 0xBF) -> Bool {
            i + k < n && s[i + k] >= low && s[i + k] <= high
        }
        switch b0 {
        case 0xC2...0xDF:
            return cont(1) ? 2 : nil
        case 0xE0:
            return cont(1, 0xA0, 0xBF) && cont(2) ? 3 : nil
        case 0xE1...0xEC, 0xEE...0xEF:
            return cont(1) && cont(2) ? 3 : nil
        case 0xED:
            return cont(1, 0x80, 0x9F) && cont(2) ? 3 : nil
        case 0xF0:
            return cont(1, 0x90, 0xBF) && cont(2) && cont(3) ? 4 : nil
        case 0xF1...0xF3:
            return cont(1) && cont(2) && cont(3) ? 4 : nil
        case 0xF4:
            return cont(1, 0x80, 0x8F) && cont(2) && cont(3) ? 4 : nil
        default:
            return nil
        }
    }
}

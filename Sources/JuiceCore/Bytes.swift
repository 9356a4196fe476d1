// Small byte helpers. The hot path (framing, parsing, replies) works on bytes, never on a String
// per line: a String costs an allocation and a UTF-8 validation pass each time.

extension Array where Element == UInt8 {
    
    public mutating func append(ascii string: StaticString) {
        string.withUTF8Buffer { self.append(contentsOf: $0) }
    }

    
    public mutating func append(_ string: String) {
        self.append(contentsOf: string.utf8)
    }

    /// Appends the decimal digits of `value` without going through String.
    
    public mutating func append(decimal value: Int) {
        if value < 0 {
            append(UInt8(ascii: "-"))
            append(decimal: UInt64(value.magnitude))
        } else {
            append(decimal: UInt64(value))
        }
    }

    
    public mutating func append(decimal value: UInt64) {
        if value < 10 {
            append(UInt8(truncatingIfNeeded: value) &+ 48)
            return
        }
        var digits = 1
        var scale: UInt64 = 10
        while digits < 20 && value >= scale {
            digits += 1
            if digits < 20 { scale &*= 10 }
        }
        // Grow once, then write the digits in place from the right.
        let start = count
        append(contentsOf: repeatElement(UInt8(48), count: digits))
        withUnsafeMutableBufferPointer { buffer in
            var rest = value
            var i = start + digits - 1
            while rest > 0 {
                buffer[i] = UInt8(truncatingIfNeeded: rest % 10) &+ 48
                rest /= 10
                i -= 1
            }
        }
    }

    /// Ends a line the way the server always does: CRLF.
    
    public mutating func appendLineEnd() {
        append(13)
        append(10)
    }
}

enum ASCII {
    static let space: UInt8 = 0x20
    static let tab: UInt8 = 0x09
    static let cr: UInt8 = 0x0D
    static let lf: UInt8 = 0x0A

    @inline(__always)
    static func lower(_ b: UInt8) -> UInt8 {
        (b >= 0x41 && b <= 0x5A) ? b | 0x20 : b
    }
}

/// Case-insensitive (ASCII) comparison of raw bytes with a lowercase ASCII literal or name.
@inline(__always)
func equalsFolded(_ bytes: UnsafeRawBufferPointer, _ lowercase: [UInt8]) -> Bool {
    guard bytes.count == lowercase.count else { return false }
    for i in 0..<bytes.count where ASCII.lower(bytes[i]) != lowercase[i] {
        return false
    }
    return true
}

/// `String(decoding:)` for a slice that is known to be valid UTF-8 (checked by the parser).
func text(_ bytes: UnsafeRawBufferPointer) -> String {
    String(decoding: bytes, as: UTF8.self)
}

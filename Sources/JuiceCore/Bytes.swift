// Small byte helpers. The hot path (framing, parsing, replies) works on bytes, never on a String
// per line: a String costs an allocation and a UTF-8 validation pass each time.

// The appends below are @inlinable: the journal's records (JuiceStorage) and the HTTP answers
// are written with them from other modules, where an opaque call per field showed in the
// profile of a durable run.
extension Array where Element == UInt8 {
    @inlinable
    package mutating func append(ascii string: StaticString) {
        string.withUTF8Buffer { self.append(contentsOf: $0) }
    }

    @inlinable
    package mutating func append(_ string: String) {
        self.append(contentsOf: string.utf8)
    }

    /// Appends the decimal digits of `value` without going through String.
    @inlinable
    package mutating func append(decimal value: Int) {
        if value < 0 {
            append(UInt8(ascii: "-"))
            append(decimal: UInt64(value.magnitude))
        } else {
            append(decimal: UInt64(value))
        }
    }

    @inlinable
    package mutating func append(decimal value: UInt64) {
        if value < 10 {
            append(UInt8(truncatingIfNeeded: value) &+ 48)
            return
        }
        // Right to left into 20 bytes on the stack (UInt64.max has 20 digits), then one copy:
        // growing the array with placeholder digits first cost a third of this (S2, perf).
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
            var rest = value
            var i = 20
            repeat {
                i -= 1
                digits[i] = UInt8(truncatingIfNeeded: rest % 10) &+ 48
                rest /= 10
            } while rest > 0
            append(contentsOf: UnsafeBufferPointer(rebasing: digits[i...]))
        }
    }

    /// Ends a line the way the server always does: CRLF.
    @inlinable
    package mutating func appendLineEnd() {
        append(13)
        append(10)
    }
}

package enum ASCII {
    package static let space: UInt8 = 0x20
    package static let tab: UInt8 = 0x09
    package static let cr: UInt8 = 0x0D
    package static let lf: UInt8 = 0x0A

    @inline(__always)
    package static func lower(_ b: UInt8) -> UInt8 {
        (b >= 0x41 && b <= 0x5A) ? b | 0x20 : b
    }
}

/// Case-insensitive (ASCII) comparison of raw bytes with a lowercase ASCII literal or name.
@inline(__always)
package func equalsFolded(_ bytes: UnsafeRawBufferPointer, _ lowercase: [UInt8]) -> Bool {
    guard bytes.count == lowercase.count else { return false }
    for i in 0..<bytes.count where ASCII.lower(bytes[i]) != lowercase[i] {
        return false
    }
    return true
}

/// The offset of the first `byte` in `buffer` at or after `start`, or nil: memchr in Swift, so
/// JuiceCore needs no C library. It is the line framer's hot path, so it reads eight bytes at a
/// time and finds a match in a word with the classic has-zero-byte test on `word ^ pattern`:
/// `(x - 0x01..01) & ~x & 0x80..80` is non-zero exactly when some byte of x is zero, and its
/// lowest set bit marks the first one (a borrow can only set bits above a true zero byte).
@inline(__always)
package func firstIndex(of byte: UInt8, in buffer: UnsafeRawBufferPointer, from start: Int) -> Int? {
    guard let base = buffer.baseAddress else { return nil }
    let count = buffer.count
    let ones: UInt64 = 0x0101_0101_0101_0101
    let highs: UInt64 = 0x8080_8080_8080_8080
    let pattern = UInt64(byte) &* ones
    var i = start
    while i + 8 <= count {
        // Little-endian order whatever the machine: byte i is the lowest.
        let word = UInt64(littleEndian: base.loadUnaligned(fromByteOffset: i, as: UInt64.self)) ^ pattern
        let zeros = (word &- ones) & ~word & highs
        if zeros != 0 { return i + zeros.trailingZeroBitCount / 8 }
        i += 8
    }
    while i < count {
        if base.load(fromByteOffset: i, as: UInt8.self) == byte { return i }
        i += 1
    }
    return nil
}

/// `String(decoding:)` for a slice that is known to be valid UTF-8 (checked by the parser).
package func text(_ bytes: UnsafeRawBufferPointer) -> String {
    String(decoding: bytes, as: UTF8.self)
}

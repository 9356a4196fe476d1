import Testing
@testable import JuiceCore
import JuiceDomain
import JuiceStorage

/// `firstIndex(of:in:from:)`, the framer's memchr: eight bytes at a time, so every position
/// relative to a word boundary, every start offset and the bytes a borrow could confuse (0x01
/// after the target, 0x80, 0xFF) must give what a plain loop gives.
@Suite(.onOwnThreads) struct ByteSearchTests {
    static func plain(_ byte: UInt8, _ bytes: [UInt8], from start: Int) -> Int? {
        bytes.indices.first { $0 >= start && bytes[$0] == byte }
    }

    @Test func findsEveryPositionFromEveryStart() {
        for length in 0...40 {
            for position in 0..<max(length, 1) {
                var bytes = [UInt8](repeating: 0x41, count: length)
                if position < length { bytes[position] = 0x0A }
                if position + 1 < length { bytes[position + 1] = 0x0B }   // target + 1 right after
                bytes.withUnsafeBytes { raw in
                    for start in 0...length {
                        #expect(firstIndex(of: 0x0A, in: raw, from: start) == Self.plain(0x0A, bytes, from: start),
                                "length \(length), newline at \(position), from \(start)")
                    }
                }
            }
        }
    }

    @Test func agreesWithAPlainLoopOnAwkwardBytes() {
        var generator = SystemRandomNumberGenerator()
        let alphabet: [UInt8] = [0x00, 0x01, 0x0A, 0x0B, 0x7F, 0x80, 0x81, 0xFE, 0xFF]
        for _ in 0..<2000 {
            let bytes = (0..<Int.random(in: 0...70, using: &generator)).map { _ in alphabet.randomElement(using: &generator)! }
            let target = alphabet.randomElement(using: &generator)!
            let start = Int.random(in: 0...bytes.count, using: &generator)
            bytes.withUnsafeBytes { raw in
                #expect(firstIndex(of: target, in: raw, from: start) == Self.plain(target, bytes, from: start),
                        "\(bytes) target \(target) from \(start)")
            }
        }
    }
}

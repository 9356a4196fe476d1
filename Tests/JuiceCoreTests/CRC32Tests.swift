import Testing
import JuiceStorage

@Suite("CRC32", .onOwnThreads)
struct CRC32Tests {
    @Test("known vectors")
    func vectors() {
        #expect(CRC32.checksum(bytes("123456789")) == 0xCBF4_3926)
        #expect(CRC32.checksum([]) == 0)
        #expect(CRC32.checksum(bytes("The quick brown fox jumps over the lazy dog")) == 0x414F_A339)
        #expect(CRC32.checksum([0]) == 0xD202_EF8D)
        let raw = bytes("123456789")
        #expect(raw.withUnsafeBytes { CRC32.checksum($0) } == 0xCBF4_3926)
    }

    @Test("eight bytes a step checks what a byte a step checks, at every length and alignment")
    func slicingMatchesBytewise() {
        var rng = SeededRNG(seed: 23)
        for length in 0..<80 {
            let data = (0..<length + 3).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
            for start in 0..<3 {
                let slice = Array(data[start..<(start + length)])
                #expect(CRC32.checksum(slice) == bytewise(slice), "length \(length) from \(start)")
            }
        }
    }

    /// The textbook CRC-32, one bit at a time.
    private func bytewise(_ bytes: [UInt8]) -> UInt32 {
        var c: UInt32 = 0xFFFF_FFFF
        for b in bytes {
            c ^= UInt32(b)
            for _ in 0..<8 { c = (c & 1) != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
        }
        return c ^ 0xFFFF_FFFF
    }
}

@testable import JuiceCore

/// A small deterministic generator (SplitMix64), so randomised tests replay identically.
struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Bytes of a string literal, with `\u{..}` escapes only for valid scalars; raw bytes via arrays.
func bytes(_ s: String) -> [UInt8] { Array(s.utf8) }

/// Fruit and juice indices of the standard menu.
enum F {
    static let strawberry = 0, banana = 1, pineapple = 2, kiwi = 3, mango = 4
}

enum J {
    static let strawberry = 0, banana = 1, kiwi = 2, pineapple = 3, strawberryBanana = 4, mango = 5, mangoKiwi = 6
}

extension Array where Element == UInt8 {
    var string: String { String(decoding: self, as: UTF8.self) }
}

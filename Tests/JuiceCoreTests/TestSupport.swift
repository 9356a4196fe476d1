@testable import JuiceCore
import JuiceDomain
import JuiceStorage
@_exported import JuiceTestSupport

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

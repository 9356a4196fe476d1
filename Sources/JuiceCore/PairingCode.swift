/// A pairing code as a person reads it off one screen and types it into another: eight
/// letters and digits without the ones that look alike (0/O, 1/I/L), as `K7QF-M2XP`.
/// Typed back in any case, with or without the dash.
package enum PairingCode {
    package static let alphabet = Array("ABCDEFGHJKMNPQRSTUVWXYZ23456789")

    package static func make() -> String {
        var rng = SystemRandomNumberGenerator()
        let chars = (0..<8).map { _ in alphabet[Int(rng.next(upperBound: UInt64(alphabet.count)))] }
        return String(chars[0..<4]) + "-" + String(chars[4...])
    }

    /// `k7qf m2xp`, `K7QFM2XP` and `K7QF-M2XP` are one code; nil for what cannot be one.
    package static func normalized(_ typed: String) -> String? {
        let chars = typed.uppercased().filter { $0 != "-" && $0 != " " }
        guard chars.count == 8, chars.allSatisfy(alphabet.contains) else { return nil }
        return String(chars.prefix(4)) + "-" + String(chars.suffix(4))
    }
}

/// A till's credential: `<till>-<32 lowercase letters and digits>`, 160 random bits.
package enum TillCredential {
    package static let alphabet = Array("abcdefghijklmnopqrstuvwxyz234567")

    package static func make(for id: TillID) -> String {
        var rng = SystemRandomNumberGenerator()
        return "\(id)-" + String((0..<32).map { _ in alphabet[Int(rng.next(upperBound: UInt64(alphabet.count)))] })
    }
}

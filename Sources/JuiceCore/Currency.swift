/// The menu's currency: an ISO 4217 code and how many digits its minor unit has. Every amount
/// in the store (a price, a sale, takings) is a whole number of minor units: won for KRW (which
/// has none), cents for USD and EUR. Nothing is ever a floating-point amount.
public struct Currency: Sendable, Equatable {
    /// Three uppercase ASCII letters, e.g. `KRW`.
    public let code: String
    /// The digits after the decimal point a person reads: 0 for KRW and JPY, 2 for USD and EUR.
    public let minorDigits: Int

    /// A currency by its ISO 4217 code; nil unless `code` is three uppercase letters. The minor
    /// unit comes from ISO 4217's table for the codes that differ from 2; every other code has 2.
    public init?(code: String) {
        guard code.utf8.count == 3, code.utf8.allSatisfy({ (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains($0) }) else { return nil }
        self.code = code
        self.minorDigits = Currency.minorDigits[code] ?? 2
    }

    /// ISO 4217's currencies whose minor unit is not 2 digits (the ones a shop might use).
    private static let minorDigits: [String: Int] = [
        "KRW": 0, "JPY": 0, "VND": 0, "CLP": 0, "ISK": 0, "PYG": 0, "UGX": 0, "XAF": 0, "XOF": 0, "IDR": 2,
        "BHD": 3, "IQD": 3, "JOD": 3, "KWD": 3, "LYD": 3, "OMR": 3, "TND": 3,
    ]

    /// The most a price may be, in minor units: a juice costs far less, and the sums of a
    /// day's sales then stay far from overflow (a sale is at most 1,000 juices).
    public static let maxPrice = 100_000_000

    /// An amount as a person reads it on a terminal, with the currency's minor-unit digits and
    /// thousands separators: `₩4,500`, `$4.50`, `€4.50`, `CHF 4.50`. (The pages use the browser's
    /// `Intl.NumberFormat`, which knows each locale's way; a terminal gets this one.)
    public func format(_ amount: Int) -> String {
        let negative = amount < 0
        let magnitude = amount.magnitude
        var scale: UInt = 1
        for _ in 0..<minorDigits { scale *= 10 }
        var whole = String(magnitude / scale)
        var grouped = ""
        while whole.count > 3 {
            grouped = "," + whole.suffix(3) + grouped
            whole.removeLast(3)
        }
        grouped = whole + grouped
        if minorDigits > 0 {
            let fraction = String(magnitude % scale)
            grouped += "." + String(repeating: "0", count: minorDigits - fraction.count) + fraction
        }
        let sign = negative ? "-" : ""
        if let symbol = Currency.symbols[code] { return sign + symbol + grouped }
        return sign + code + " " + grouped
    }

    private static let symbols: [String: String] = ["KRW": "₩", "USD": "$", "EUR": "€", "JPY": "¥", "GBP": "£"]
}

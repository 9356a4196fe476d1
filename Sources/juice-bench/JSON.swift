import JuiceCore

/// A minimal JSON value with ordered object keys, so the output reads the same every run.
/// Strings and objects are written by the server's own `JSONText` (control characters as `\u00XX`).
indirect enum JSON {
    case null
    case bool(Bool)
    case int(Int)
    case number(Double, decimals: Int)
    case string(String)
    case object([(String, JSON)])
    case array([JSON])

    var text: String {
        switch self {
        case .null: return "null"
        case .bool(let value): return value ? "true" : "false"
        case .int(let value): return String(value)
        case .number(let value, let decimals): return value.isFinite ? formatFixed(value, decimals) : "null"
        case .string(let value): return JSONText.string(value)
        case .object(let members):
            return JSONText.object(members.map { ($0.0, $0.1.text) })
        case .array(let elements):
            return JSONText.array(elements.map(\.text))
        }
    }
}

// A screen line built from styled pieces. Widths are measured on the text alone, so colour
// escapes never upset alignment or truncation; escapes are added only when the line is
// turned into a string.

public enum Style: String, Sendable {
    case plain = ""
    case bold = "1"
    case dim = "2"
    case header = "1;4"
    case good = "32"
    case warning = "33"
    case soldOut = "1;31"
    case unavailable = "2;31"
    case statusOK = "1;32"
    case statusBad = "1;33"
}

public struct StyledLine: Sendable {
    public struct Span: Sendable {
        public var text: String
        public var style: Style
    }

    public private(set) var spans: [Span] = []

    public init() {}

    public init(_ text: String, _ style: Style = .plain) {
        append(text, style)
    }

    public mutating func append(_ text: String, _ style: Style = .plain) {
        guard !text.isEmpty else { return }
        spans.append(Span(text: text, style: style))
    }

    public var columns: Int { spans.reduce(0) { $0 + DisplayWidth.columns(of: $1.text) } }

    /// The line cut to `width` columns (an "…" marks the cut).
    public func truncated(to width: Int) -> StyledLine {
        guard columns > width else { return self }
        guard width > 0 else { return StyledLine() }
        var result = StyledLine()
        var left = width
        for span in spans {
            let w = DisplayWidth.columns(of: span.text)
            if w < left {
                result.append(span.text, span.style)
                left -= w
            } else {
                // This span reaches the edge: cut it and end with the marker.
                result.append(DisplayWidth.truncate(span.text + "…", to: left), span.style)
                break
            }
        }
        return result
    }

    /// The text with SGR colour escapes when `color` is on, plain text otherwise.
    public func rendered(color: Bool) -> String {
        var out = ""
        for span in spans {
            if color, span.style != .plain {
                out += "\u{1B}[\(span.style.rawValue)m\(span.text)\u{1B}[0m"
            } else {
                out += span.text
            }
        }
        return out
    }
}

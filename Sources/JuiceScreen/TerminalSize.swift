/// How much a terminal shows: the screen a renderer fills, line for line.
public struct TerminalSize: Equatable, Sendable {
    public var columns: Int
    public var rows: Int

    public init(columns: Int, rows: Int) { (self.columns, self.rows) = (columns, rows) }

    /// The size of a terminal that does not say (80 x 24), and of the screen before it is asked.
    public static let fallback = TerminalSize(columns: 80, rows: 24)
}

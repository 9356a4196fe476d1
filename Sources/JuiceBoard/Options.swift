// Command-line options of juice-board.
import JuiceScreen

public struct BoardOptions: ClientOptions, Equatable {
    public var host = "127.0.0.1"
    public var port: UInt16 = 7878
    public var language: Language = .english
    /// One plain line per change instead of the full-screen display (also when stdout is not a TTY).
    public var plain = false
    public var color = true
    public var showHelp = false

    public init() {}

    public static let usage = """
        usage: juice-board [--host H] [--port P] [--lang en|ko] [--plain] [--no-color]

        A live display of the juice stand's stock, from a juice-server.
          --host H      server address (default 127.0.0.1)
          --port P      server port (default 7878)
          --lang ko     show Korean names beside the names
          --plain       print one line per change instead of the full screen
                        (the default when stdout is not a terminal)
          --no-color    no colours (also when NO_COLOR is set)
        Keys: q or Ctrl-C quits.
        """

    public typealias ParseError = OptionParseError

    /// Parses the arguments after the program name. `environment` is consulted for NO_COLOR.
    public static func parse(_ arguments: [String], environment: [String: String] = [:]) throws(ParseError) -> BoardOptions {
        try parse(arguments, environment: environment) { options, name, _ in
            guard name == "--plain" else { return false }
            options.plain = true
            return true
        }
    }
}

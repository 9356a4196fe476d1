// Command-line options of juice-board.

public struct BoardOptions: Equatable, Sendable {
    public var host = "127.0.0.1"
    public var port: UInt16 = 7878
    public var language: Language = .english
    /// One plain line per change instead of the full-screen display (also when stdout is not a TTY).
    public var plain = false
    public var color = true
    public var showHelp = false

    public init() {}

    public var serverAddress: String {
        host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
    }

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

    public struct ParseError: Error, Equatable, CustomStringConvertible {
        public var description: String
    }

    /// Parses the arguments after the program name. `environment` is consulted for NO_COLOR.
    public static func parse(_ arguments: [String], environment: [String: String] = [:]) throws(ParseError) -> BoardOptions {
        var options = BoardOptions()
        if let noColor = environment["NO_COLOR"], !noColor.isEmpty { options.color = false }
        var remaining = arguments[...]
        while let argument = remaining.popFirst() {
            // Accept both "--port 7878" and "--port=7878".
            var name = argument
            var inlineValue: String? = nil
            if argument.hasPrefix("--"), let eq = argument.firstIndex(of: "=") {
                name = String(argument[..<eq])
                inlineValue = String(argument[argument.index(after: eq)...])
            }
            func value() throws(ParseError) -> String {
                if let inlineValue { return inlineValue }
                guard let next = remaining.popFirst() else { throw ParseError(description: "\(name) needs a value") }
                return next
            }
            switch name {
            case "--host":
                let host = try value()
                guard !host.isEmpty else { throw ParseError(description: "--host needs a value") }
                options.host = host
            case "--port":
                let text = try value()
                guard let port = UInt16(text), port > 0 else {
                    throw ParseError(description: "--port must be 1-65535, not \(text)")
                }
                options.port = port
            case "--lang":
                let text = try value()
                guard let language = Language(rawValue: text.lowercased()) else {
                    throw ParseError(description: "--lang must be en or ko, not \(text)")
                }
                options.language = language
            case "--plain": options.plain = true
            case "--no-color", "--no-colour": options.color = false
            case "-h", "--help": options.showHelp = true
            default: throw ParseError(description: "unknown option \(argument)")
            }
        }
        return options
    }
}

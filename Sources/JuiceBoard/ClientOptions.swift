// The command-line flags juice-board and juice-till share (--host, --port, --lang, --no-color,
// --help, NO_COLOR) and the one loop that reads them, so both programs accept the same spellings
// ("--port 7878" and "--port=7878") and say the same errors.

/// What is wrong with a command line; `description` is the line the program prints.
public struct OptionParseError: Error, Equatable, CustomStringConvertible {
    public var description: String
    public init(description: String) { self.description = description }
}

/// The options of a program that talks to a juice-server from a terminal.
public protocol ClientOptions: Sendable {
    init()
    var host: String { get set }
    var port: UInt16 { get set }
    var language: Language { get set }
    var color: Bool { get set }
    var showHelp: Bool { get set }
    static var usage: String { get }
    /// The program's parser: the shared flags (`parse(_:environment:own:)`) and its own.
    static func parse(_ arguments: [String], environment: [String: String]) throws(OptionParseError) -> Self
}

extension ClientOptions {
    /// `host:port`, with an IPv6 host in brackets.
    public var serverAddress: String {
        host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
    }

    /// Parses the arguments after the program name; `environment` is consulted for NO_COLOR.
    /// `own` handles a flag only this program has: it gets the flag's name and a reader of its
    /// value, and returns false for a name it does not know.
    public static func parse(
        _ arguments: [String], environment: [String: String],
        own: (inout Self, String, () throws(OptionParseError) -> String) throws(OptionParseError) -> Bool
    ) throws(OptionParseError) -> Self {
        var options = Self()
        if let noColor = environment["NO_COLOR"], !noColor.isEmpty { options.color = false }
        var remaining = arguments[...]
        while let argument = remaining.popFirst() {
            var name = argument
            var inlineValue: String? = nil
            if argument.hasPrefix("--"), let eq = argument.firstIndex(of: "=") {
                name = String(argument[..<eq])
                inlineValue = String(argument[argument.index(after: eq)...])
            }
            func value() throws(OptionParseError) -> String {
                if let inlineValue { return inlineValue }
                guard let next = remaining.popFirst() else { throw OptionParseError(description: "\(name) needs a value") }
                return next
            }
            switch name {
            case "--host":
                let host = try value()
                guard !host.isEmpty else { throw OptionParseError(description: "--host needs a value") }
                options.host = host
            case "--port":
                let text = try value()
                guard let port = UInt16(text), port > 0 else {
                    throw OptionParseError(description: "--port must be 1-65535, not \(text)")
                }
                options.port = port
            case "--lang":
                let text = try value()
                guard let language = Language(rawValue: text.lowercased()) else {
                    throw OptionParseError(description: "--lang must be en or ko, not \(text)")
                }
                options.language = language
            case "--no-color", "--no-colour": options.color = false
            case "-h", "--help": options.showHelp = true
            default:
                guard try own(&options, name, value) else {
                    throw OptionParseError(description: "unknown option \(argument)")
                }
            }
        }
        return options
    }
}

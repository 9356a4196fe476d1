// The command-line flags juice-board and juice-till share (--host, --port, --lang, --no-color,
// --help, NO_COLOR) and the one loop that reads them, with the scanner every juice program reads
// its command line with: the same spellings ("--port 7878" and "--port=7878") and errors.
import JuicePlatform

/// What is wrong with a command line; `description` is the line the program prints.
public struct OptionParseError: Error, Equatable, CustomStringConvertible {
    public var description: String
    public init(description: String) { self.description = description }
}

/// The scanner's steps, with its errors as `OptionParseError`s.
private extension CommandLineScanner {
    mutating func flag() throws(OptionParseError) -> String? {
        do { return try nextFlag() } catch { throw OptionParseError(description: error.description) }
    }

    mutating func text() throws(OptionParseError) -> String {
        do { return try value() } catch { throw OptionParseError(description: error.description) }
    }

    mutating func port() throws(OptionParseError) -> UInt16 {
        do { return UInt16(try number(in: 1...65535)) } catch { throw OptionParseError(description: error.description) }
    }
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
        var scanner = CommandLineScanner(arguments)
        if scanner.asksForHelp {
            options.showHelp = true
            return options
        }
        while let name = try scanner.flag() {
            func value() throws(OptionParseError) -> String { try scanner.text() }
            switch name {
            case "--host":
                let host = try value()
                guard !host.isEmpty else { throw OptionParseError(description: "--host needs a value") }
                options.host = host
            case "--port":
                options.port = try scanner.port()
            case "--lang":
                let text = try value()
                guard let language = Language(rawValue: text.lowercased()) else {
                    throw OptionParseError(description: "--lang must be en or ko, not \(text)")
                }
                options.language = language
            case "--no-color", "--no-colour": options.color = false
            default:
                guard try own(&options, name, value) else {
                    throw OptionParseError(description: CommandLineError.unknownFlag(name).description)
                }
            }
        }
        return options
    }
}

/// The one way juice's programs read a command line (juice-server, juice-bench, juice-board,
/// juice-till), so that a flag is spelled alike everywhere. Each program keeps its own flags,
/// checks and help text; only what a command line looks like is decided here:
///
/// - `--name value` and `--name=value` are the same flag with the same value;
/// - a flag that takes no value refuses one given with `=` (the program never asked for it);
/// - `--help` or `-h` anywhere asks for help, before anything else is looked at (a program
///   prints its help even for a command line it would refuse);
/// - an argument that does not start with `-` (or is `-` alone) is positional;
/// - a value is the next argument whatever it looks like: `--http-port -1` is a bad port, not a
///   port left out.
package struct CommandLineScanner {
    package enum Item: Equatable, Sendable {
        case flag(String)
        case positional(String)
    }

    /// `--help` or `-h` is among the arguments: the program shows its help and reads no further.
    package let asksForHelp: Bool
    /// The flag read last: what a value, and an error about it, belong to.
    package private(set) var flag = ""
    private var remaining: ArraySlice<String>
    private var inlineValue: String? = nil

    package init(_ arguments: some Sequence<String>) {
        remaining = ArraySlice(arguments)
        asksForHelp = remaining.contains { $0 == "--help" || $0 == "-h" }
    }

    /// The next flag or positional argument; nil after the last.
    package mutating func next() throws(CommandLineError) -> Item? {
        if let inlineValue { throw .unexpectedValue(flag: flag, value: inlineValue) }
        guard let argument = remaining.popFirst() else { return nil }
        guard argument.hasPrefix("-"), argument != "-" else { return .positional(argument) }
        if argument.hasPrefix("--"), let equals = argument.firstIndex(of: "=") {
            flag = String(argument[..<equals])
            let value = String(argument[argument.index(after: equals)...])
            inlineValue = value
        } else {
            flag = argument
        }
        return .flag(flag)
    }

    /// The next flag, where no positional argument is taken (one is an error); nil after the last.
    package mutating func nextFlag() throws(CommandLineError) -> String? {
        switch try next() {
        case nil: return nil
        case .flag(let flag): return flag
        case .positional(let argument): throw .unexpectedArgument(argument)
        }
    }

    /// The value of the flag just read: what follows its `=`, or else the next argument.
    package mutating func value() throws(CommandLineError) -> String {
        if let value = inlineValue {
            inlineValue = nil
            return value
        }
        guard let value = remaining.popFirst() else { throw .needsValue(flag: flag) }
        return value
    }

    /// The value as a whole number in `range`: decimal digits only (no sign, no exponent), so a
    /// value that overflows or is not a count is refused rather than read as something else.
    /// `unit` ("seconds") only words the error.
    package mutating func number(in range: ClosedRange<Int>, unit: String = "") throws(CommandLineError) -> Int {
        let text = try value()
        guard !text.isEmpty, text.allSatisfy({ $0.isASCII && $0.isNumber }), let number = Int(text), range.contains(number) else {
            throw .badNumber(flag: flag, text: text, range: range, unit: unit)
        }
        return number
    }
}

/// What is wrong with a command line, in the words every program uses for it.
package enum CommandLineError: Error, Equatable, Sendable, CustomStringConvertible {
    case needsValue(flag: String)
    case unexpectedValue(flag: String, value: String)
    case badNumber(flag: String, text: String, range: ClosedRange<Int>, unit: String)
    case unknownFlag(String)
    case unexpectedArgument(String)

    package var description: String {
        switch self {
        case .needsValue(let flag):
            return "\(flag) needs a value"
        case .unexpectedValue(let flag, let value):
            return "\(flag) takes no value, not '\(value)'"
        case .badNumber(let flag, let text, let range, let unit):
            return "\(flag) must be \(range.lowerBound) to \(range.upperBound)\(unit.isEmpty ? "" : " " + unit), not '\(text)'"
        case .unknownFlag(let flag):
            return "unknown option \(flag)"
        case .unexpectedArgument(let argument):
            return "unexpected argument '\(argument)'"
        }
    }
}

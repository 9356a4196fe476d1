import Testing
@testable import JuiceCore

// What the CommandParser tests share: the standard menu's parser, and cases to feed it.

let standardParser = CommandParser(menu: .standard)

func parse(_ line: [UInt8], manager: Bool = true) -> ParsedLine {
    line.withUnsafeBytes { standardParser.parse($0, isManager: manager) }
}

func parse(_ line: String, manager: Bool = true) -> ParsedLine {
    parse(bytes(line), manager: manager)
}

extension ParsedLine {
    var command: Command? {
        if case .command(let c) = self { return c }
        return nil
    }
    var error: ProtocolError? {
        if case .refused(let e, _) = self { return e }
        return nil
    }
    var code: ErrorCode? { error?.code }
    var closes: Bool? {
        if case .refused(_, let close) = self { return close }
        return nil
    }
}

func order(_ juice: Int, _ count: Int = 1, key: String? = nil) -> Command {
    .order(OrderRequest(juice: juice, count: count, key: key))
}

struct ParseCase: CustomTestStringConvertible, Sendable {
    let line: String
    let command: Command
    init(_ line: String, _ command: Command) {
        self.line = line
        self.command = command
    }
    var testDescription: String { line.debugDescription }
}

struct RefusalCase: CustomTestStringConvertible, Sendable {
    let line: [UInt8]
    let code: ErrorCode
    init(_ line: String, _ code: ErrorCode) {
        self.line = bytes(line)
        self.code = code
    }
    init(_ line: [UInt8], _ code: ErrorCode) {
        self.line = line
        self.code = code
    }
    var testDescription: String { String(decoding: line, as: UTF8.self).debugDescription + " → \(code.rawValue)" }
}

import Testing
import Glibc
@testable import JuiceCore
import JuiceDomain
import JuiceStorage

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

@Suite("CommandParser", .onOwnThreads)
struct ParserTests {
    @Test("every command, in every spelling the parser accepts", arguments: [
        ParseCase("HELP", .help),
        ParseCase("PING", .ping),
        ParseCase("MENU", .menu),
        ParseCase("MENU ALIASES", .menuAliases),
        ParseCase("STOCK", .stock(fruit: nil)),
        ParseCase("STOCK strawberry", .stock(fruit: F.strawberry)),
        ParseCase("STOCK banana", .stock(fruit: F.banana)),
        ParseCase("STOCK pineapple", .stock(fruit: F.pineapple)),
        ParseCase("STOCK kiwi", .stock(fruit: F.kiwi)),
        ParseCase("STOCK mango", .stock(fruit: F.mango)),
        ParseCase("ORDER strawberry", order(J.strawberry)),
        ParseCase("ORDER banana", order(J.banana)),
        ParseCase("ORDER kiwi", order(J.kiwi)),
        ParseCase("ORDER pineapple", order(J.pineapple)),
        ParseCase("ORDER strawberry-banana", order(J.strawberryBanana)),
        ParseCase("ORDER mango", order(J.mango)),
        ParseCase("ORDER mango-kiwi 2", order(J.mangoKiwi, 2)),
        ParseCase("ORDER mango 1", order(J.mango, 1)),
        ParseCase("ORDER mango 1000", order(J.mango, 1000)),
        ParseCase("ORDER mango 007", order(J.mango, 7)),
        ParseCase("ORDER mango 0001000", order(J.mango, 1000)),
        ParseCase("RESTOCK kiwi 5", .restock(fruit: F.kiwi, amount: 5)),
        ParseCase("RESTOCK kiwi 1", .restock(fruit: F.kiwi, amount: 1)),
        ParseCase("RESTOCK kiwi 1000000000", .restock(fruit: F.kiwi, amount: 1_000_000_000)),
        ParseCase("RESTOCK kiwi 007", .restock(fruit: F.kiwi, amount: 7)),
        ParseCase("RESTOCK kiwi 5 key=editor-1", .restock(fruit: F.kiwi, amount: 5, key: "editor-1")),
        ParseCase("RESTOCK kiwi 5 KEY=e.1", .restock(fruit: F.kiwi, amount: 5, key: "e.1")),
        ParseCase("SET kiwi 0 key=editor:2", .set(fruit: F.kiwi, amount: 0, key: "editor:2")),
        ParseCase("REPORT", .report(day: nil)),
        ParseCase("report 2026-11-25", .report(day: 20_782)),
        ParseCase("REPORT 2024-02-29", .report(day: 19_782)),
        ParseCase("SET kiwi 0", .set(fruit: F.kiwi, amount: 0)),
        ParseCase("SET mango 000", .set(fruit: F.mango, amount: 0)),
        ParseCase("SET kiwi 1000000000", .set(fruit: F.kiwi, amount: 1_000_000_000)),
        ParseCase("SET banana 42", .set(fruit: F.banana, amount: 42)),
        ParseCase("EVENTS ON", .events(on: true)),
        ParseCase("EVENTS OFF", .events(on: false)),
        ParseCase("STATS", .stats),
        ParseCase("SINCE 0", .since(0)),
        ParseCase("SINCE 5", .since(5)),
        ParseCase("SINCE 005", .since(5)),
        ParseCase("SINCE 9223372036854775807", .since(UInt64(Int64.max))),
        ParseCase("AUTH tok", .auth(token: bytes("tok"))),
        ParseCase("AUTH s3cr=t/!", .auth(token: bytes("s3cr=t/!"))),
        ParseCase("QUIT", .quit),

        // Verbs and names are case-insensitive.
        ParseCase("help", .help),
        ParseCase("PiNg", .ping),
        ParseCase("menu aliases", .menuAliases),
        ParseCase("Menu Aliases", .menuAliases),
        ParseCase("stock KIWI", .stock(fruit: F.kiwi)),
        ParseCase("order MANGO-Kiwi 2", order(J.mangoKiwi, 2)),
        ParseCase("Order Strawberry-BANANA", order(J.strawberryBanana)),
        ParseCase("restock Pineapple 3", .restock(fruit: F.pineapple, amount: 3)),
        ParseCase("set MANGO 1", .set(fruit: F.mango, amount: 1)),
        ParseCase("events on", .events(on: true)),
        ParseCase("Events Off", .events(on: false)),
        ParseCase("stats", .stats),
        ParseCase("since 3", .since(3)),
        ParseCase("auth Tok", .auth(token: bytes("Tok"))),
        ParseCase("quit", .quit),
        ParseCase("ORDER mango KEY=abc", order(J.mango, key: "abc")),
        ParseCase("ORDER mango Key=AbC", order(J.mango, key: "AbC")),

        // Korean aliases.
        ParseCase("ORDER 딸기쥬스", order(J.strawberry)),
        ParseCase("ORDER 바나나쥬스", order(J.banana)),
        ParseCase("ORDER 키위쥬스", order(J.kiwi)),
        ParseCase("ORDER 파인애플쥬스", order(J.pineapple)),
        ParseCase("ORDER 딸바쥬스 2", order(J.strawberryBanana, 2)),
        ParseCase("ORDER 망고쥬스", order(J.mango)),
        ParseCase("ORDER 망키쥬스 3 key=k", order(J.mangoKiwi, 3, key: "k")),
        ParseCase("STOCK 딸기", .stock(fruit: F.strawberry)),
        ParseCase("STOCK 바나나", .stock(fruit: F.banana)),
        ParseCase("STOCK 파인애플", .stock(fruit: F.pineapple)),
        ParseCase("STOCK 키위", .stock(fruit: F.kiwi)),
        ParseCase("RESTOCK 망고 3", .restock(fruit: F.mango, amount: 3)),
        ParseCase("SET 딸기 0", .set(fruit: F.strawberry, amount: 0)),

        // Tabs and runs of spaces separate tokens.
        ParseCase("  ORDER\t\tmango \t 2  ", order(J.mango, 2)),
        ParseCase("\tPING\t", .ping),
        ParseCase("STOCK\tkiwi", .stock(fruit: F.kiwi)),
        ParseCase("RESTOCK    kiwi\t\t\t5", .restock(fruit: F.kiwi, amount: 5)),
        ParseCase("ORDER mango 2\tkey=x", order(J.mango, 2, key: "x")),
        ParseCase("MENU \t ALIASES \t", .menuAliases),

        // Idempotency keys.
        ParseCase("ORDER mango key=abc-1.2_3:4", order(J.mango, key: "abc-1.2_3:4")),
        ParseCase("ORDER mango 3 key=k1", order(J.mango, 3, key: "k1")),
        ParseCase("ORDER mango-kiwi 1000 key=Z", order(J.mangoKiwi, 1000, key: "Z")),
        ParseCase("ORDER mango key=" + String(repeating: "k", count: 64), order(J.mango, key: String(repeating: "k", count: 64))),
        ParseCase("ORDER mango key=ABCXYZabcxyz0123456789._:-", order(J.mango, key: "ABCXYZabcxyz0123456789._:-")),
    ])
    func commands(_ c: ParseCase) {
        #expect(parse(c.line) == .command(c.command))
    }

    @Test("blank lines are empty", arguments: ["", " ", "\t", " \t  \t "])
    func blank(_ line: String) {
        #expect(parse(line) == .empty)
        #expect(parse(line, manager: false) == .empty)
    }

    @Test("errors", arguments: [
        // UNKNOWN_COMMAND
        RefusalCase("FOO", .unknownCommand),
        RefusalCase("GET", .unknownCommand),
        RefusalCase("GET /", .unknownCommand),
        RefusalCase("ORDERS mango", .unknownCommand),
        RefusalCase("P1NG", .unknownCommand),
        RefusalCase("PINGPING", .unknownCommand),
        RefusalCase("주문 mango", .unknownCommand),
        RefusalCase("key=abc", .unknownCommand),
        // UNKNOWN_JUICE
        RefusalCase("ORDER durian", .unknownJuice),
        RefusalCase("ORDER GET", .unknownJuice),
        RefusalCase("ORDER mango_kiwi", .unknownJuice),
        RefusalCase("ORDER 딸기", .unknownJuice),  // a fruit's alias, not a juice's
        RefusalCase("ORDER durian 1 2 3", .unknownJuice),  // the juice is checked first
        RefusalCase("ORDER 2 mango", .unknownJuice),
        // UNKNOWN_FRUIT
        RefusalCase("STOCK durian", .unknownFruit),
        RefusalCase("STOCK 딸기쥬스", .unknownFruit),
        RefusalCase("STOCK strawberry-banana", .unknownFruit),
        RefusalCase("RESTOCK durian 1", .unknownFruit),
        RefusalCase("RESTOCK kiwi 5 key=", .badArgument),
        RefusalCase("RESTOCK kiwi 5 key=a/b", .badArgument),
        RefusalCase("RESTOCK kiwi 5 7", .badArgument),
        RefusalCase("RESTOCK kiwi 5 key=a key=b", .badArgument),
        RefusalCase("SET kiwi key=a 5", .badArgument),
        RefusalCase("REPORT 2026-02-29", .badArgument),
        RefusalCase("REPORT 2026-1-05", .badArgument),
        RefusalCase("REPORT 1969-12-31", .badArgument),
        RefusalCase("REPORT 2026-11-25 x", .badArgument),
        RefusalCase("RESTOCK durian -1", .unknownFruit),
        RefusalCase("SET durian 0", .unknownFruit),
        // BAD_ARGUMENT: argument counts
        RefusalCase("PING extra", .badArgument),
        RefusalCase("HELP me", .badArgument),
        RefusalCase("STATS now", .badArgument),
        RefusalCase("QUIT now", .badArgument),
        RefusalCase("MENU x", .badArgument),
        RefusalCase("MENU ALIASES x", .badArgument),
        RefusalCase("STOCK kiwi mango", .badArgument),
        RefusalCase("EVENTS", .badArgument),
        RefusalCase("EVENTS maybe", .badArgument),
        RefusalCase("EVENTS on off", .badArgument),
        RefusalCase("EVENTS 1", .badArgument),
        RefusalCase("ORDER", .badArgument),
        RefusalCase("ORDER banana 1 2", .badArgument),
        RefusalCase("ORDER banana 1 key=a 2", .badArgument),
        RefusalCase("ORDER banana 1 key=a key=b", .badArgument),
        RefusalCase("ORDER banana key=a key=a", .badArgument),
        RefusalCase("RESTOCK", .badArgument),
        RefusalCase("RESTOCK kiwi", .badArgument),
        RefusalCase("RESTOCK kiwi 1 2", .badArgument),
        RefusalCase("SET", .badArgument),
        RefusalCase("SET kiwi", .badArgument),
        RefusalCase("SET kiwi 1 2", .badArgument),
        RefusalCase("SINCE", .badArgument),
        RefusalCase("SINCE 1 2", .badArgument),
        RefusalCase("AUTH", .badArgument),
        RefusalCase("AUTH a b", .badArgument),
        RefusalCase("PING a b c d e f g h i j", .badArgument),
        RefusalCase("STOCK a b c d e f g h i j", .badArgument),
        RefusalCase("RESTOCK kiwi 1 a b c d e f g h", .badArgument),
        // BAD_ARGUMENT: keys
        RefusalCase("ORDER mango key=", .badArgument),
        RefusalCase("ORDER mango 2 key=", .badArgument),
        RefusalCase("ORDER mango key=" + String(repeating: "k", count: 65), .badArgument),
        RefusalCase("ORDER mango key=a/b", .badArgument),
        RefusalCase("ORDER mango key=a=b", .badArgument),
        RefusalCase("ORDER mango key=a,b", .badArgument),
        RefusalCase("ORDER mango key=a+b", .badArgument),
        RefusalCase("ORDER mango key=é", .badArgument),
        RefusalCase("ORDER mango key=키", .badArgument),
        RefusalCase("ORDER mango key=a'b", .badArgument),
        // SINCE
        RefusalCase("SINCE -1", .badArgument),
        RefusalCase("SINCE x", .badArgument),
        RefusalCase("SINCE +5", .badArgument),
        RefusalCase("SINCE 0x10", .badArgument),
        RefusalCase("SINCE 1e3", .badArgument),
        RefusalCase("SINCE 1.0", .badArgument),
    ])
    func errors(_ c: RefusalCase) {
        let result = parse(c.line)
        #expect(result.code == c.code, "\(result)")
        #expect(result.closes == false)
        let message = result.error?.message ?? ""
        #expect(!message.isEmpty)
    }

    static let badNumbers = ["+5", "-1", "-0", "0x10", "1e3", "1.5", "1,000", "٣", "５", "ten", "18446744073709551616",
                             String(repeating: "9", count: 500), "1" + String(repeating: "0", count: 499)]

    @Test("ORDER count must be 1...1000", arguments: badNumbers + ["0", "000", "1001", "9999999999"])
    func badCount(_ number: String) {
        #expect(parse("ORDER mango " + number).code == .badArgument)
        #expect(parse("ORDER mango " + number + " key=k").code == .badArgument)
    }

    @Test("RESTOCK amount must be 1...1000000000", arguments: badNumbers + ["0", "00", "1000000001", "9999999999"])
    func badRestock(_ number: String) {
        #expect(parse("RESTOCK kiwi " + number).code == .badArgument)
    }

    @Test("SET amount must be 0...1000000000", arguments: badNumbers + ["1000000001", "9999999999"])
    func badSet(_ number: String) {
        #expect(parse("SET kiwi " + number).code == .badArgument)
    }

    @Test("a huge number for SINCE is BAD_ARGUMENT, not a crash", arguments: [
        "9223372036854775808", "18446744073709551616", "99999999999999999999", "500 digits",
    ])
    func sinceHugeNumber(_ which: String) async {
        // The parser runs in a child process: an arithmetic overflow traps, and a trap here must
        // fail this one test, not end the whole run.
        switch which {
        case "9223372036854775808":
            await #expect(processExitsWith: .success) {
                guard parse("SINCE 9223372036854775808").code == .badArgument else { exit(3) }
            }
        case "18446744073709551616":
            await #expect(processExitsWith: .success) {
                guard parse("SINCE 18446744073709551616").code == .badArgument else { exit(3) }
            }
        case "99999999999999999999":
            await #expect(processExitsWith: .success) {
                guard parse("SINCE 99999999999999999999").code == .badArgument else { exit(3) }
            }
        default:
            await #expect(processExitsWith: .success) {
                guard parse("SINCE " + String(repeating: "7", count: 500)).code == .badArgument else { exit(3) }
            }
        }
    }

    @Test("bytes the protocol refuses are BAD_REQUEST", arguments: [
        RefusalCase(bytes("ORDER ") + [0xC3, 0x28], .badRequest),  // lead byte + ASCII
        RefusalCase(bytes("ORDER ") + [0xED, 0xA0, 0x80], .badRequest),  // surrogate U+D800
        RefusalCase(bytes("ORDER ") + [0xED, 0xBF, 0xBF], .badRequest),  // surrogate U+DFFF
        RefusalCase(bytes("ORDER ") + [0xC0, 0xAF], .badRequest),  // overlong '/'
        RefusalCase(bytes("ORDER ") + [0xC1, 0xBF], .badRequest),  // overlong
        RefusalCase(bytes("ORDER ") + [0xE0, 0x80, 0xAF], .badRequest),  // overlong, 3 bytes
        RefusalCase(bytes("ORDER ") + [0xF0, 0x80, 0x80, 0xAF], .badRequest),  // overlong, 4 bytes
        RefusalCase(bytes("ORDER ") + [0xF5, 0x80, 0x80, 0x80], .badRequest),
        RefusalCase(bytes("ORDER ") + [0xF4, 0x90, 0x80, 0x80], .badRequest),  // above U+10FFFF
        RefusalCase(bytes("ORDER ") + [0xE2, 0x82], .badRequest),  // cut short at the end
        RefusalCase(bytes("ORDER ") + [0xE2, 0x82] + bytes(" x"), .badRequest),  // cut short inside
        RefusalCase(bytes("ORDER ") + [0x80], .badRequest),  // lone continuation byte
        RefusalCase(bytes("ORDER ") + [0xFF], .badRequest),  // the telnet IAC IAC byte
        RefusalCase(bytes("ORDER ") + [0xFE], .badRequest),
        RefusalCase(bytes("PI") + [0x00] + bytes("NG"), .badRequest),  // NUL
        RefusalCase([0x00], .badRequest),
        RefusalCase(bytes("\u{1b}[2J"), .badRequest),  // ESC
        RefusalCase(bytes("PING\u{1b}[2J"), .badRequest),
        RefusalCase(bytes("PING") + [0x7F], .badRequest),  // DEL
        RefusalCase(bytes("PING ") + [0xC2, 0x85], .badRequest),  // C1 control U+0085
        RefusalCase(bytes("PING ") + [0xC2, 0x80], .badRequest),  // U+0080
        RefusalCase(bytes("PING ") + [0xC2, 0x9F], .badRequest),  // U+009F
        RefusalCase(bytes("PI\rNG"), .badRequest),  // a lone CR the framer kept
        RefusalCase(bytes("PING\u{01}"), .badRequest),
        RefusalCase(bytes("\u{0B}PING"), .badRequest),  // vertical tab is not a separator
        RefusalCase(bytes("RESTOCK kiwi ") + [0x00], .badRequest),
    ])
    func badBytes(_ c: RefusalCase) {
        for manager in [true, false] {
            let result = parse(c.line, manager: manager)
            #expect(result.code == .badRequest, "\(result)")
            #expect(result.closes == false)
        }
    }

    @Test("messages say what is wrong with the bytes")
    func badBytesMessages() {
        #expect(parse(bytes("ORDER ") + [0xC3, 0x28]).error?.message.contains("UTF-8") == true)
        #expect(parse(bytes("PI") + [0x00] + bytes("NG")).error?.message.contains("control character (byte 0)") == true)
        #expect(parse(bytes("\u{1b}[2J")).error?.message.contains("control character (byte 27)") == true)
        #expect(parse(bytes("PING") + [0x7F]).error?.message.contains("control character (byte 127)") == true)
        #expect(parse(bytes("PING ") + [0xC2, 0x85]).error?.message.contains("U+0085") == true)
    }

    @Test("valid non-ASCII text is accepted", arguments: [
        [0xC2, 0xA0],  // U+00A0, the first code point after the C1 block
        [0xC3, 0xA9],  // é
        [0xE0, 0xA0, 0x80],  // U+0800
        [0xED, 0x9F, 0xBF],  // U+D7FF, just below the surrogates
        [0xEE, 0x80, 0x80],  // U+E000, just above
        [0xEF, 0xBF, 0xBF],  // U+FFFF
        [0xF0, 0x90, 0x80, 0x80],  // U+10000
        [0xF0, 0x9F, 0x8D, 0x93],  // 🍓
        [0xF4, 0x8F, 0xBF, 0xBF],  // U+10FFFF
    ] as [[UInt8]])
    func validUTF8(_ scalar: [UInt8]) {
        let token = bytes("t") + scalar + bytes("k")
        #expect(parse(bytes("AUTH ") + token) == .command(.auth(token: token)))
    }

    @Test("a tab is allowed, as a separator")
    func tabAllowed() {
        #expect(parse("AUTH\ttok") == .command(.auth(token: bytes("tok"))))
    }

    @Test("RESTOCK and SET need a manager, checked before the arguments", arguments: [
        "RESTOCK kiwi 5", "SET kiwi 0", "RESTOCK durian -1", "SET durian x", "RESTOCK", "SET", "restock kiwi 1",
        "Set KIWI 1000000001", "RESTOCK kiwi 5 6 7 8 9 10 11",
    ])
    func forbidden(_ line: String) {
        let result = parse(line, manager: false)
        #expect(result.code == .forbidden, "\(result)")
        #expect(result.closes == false)
        #expect(result.error?.message.contains("AUTH") == true)
    }

    @Test("everything else works without a manager", arguments: [
        ParseCase("ORDER mango 2", order(J.mango, 2)),
        ParseCase("STOCK", .stock(fruit: nil)),
        ParseCase("STOCK kiwi", .stock(fruit: F.kiwi)),
        ParseCase("SINCE 1", .since(1)),
        ParseCase("AUTH tok", .auth(token: bytes("tok"))),
        ParseCase("EVENTS ON", .events(on: true)),
        ParseCase("MENU", .menu),
        ParseCase("STATS", .stats),
        ParseCase("HELP", .help),
        ParseCase("PING", .ping),
        ParseCase("QUIT", .quit),
    ])
    func notForbidden(_ c: ParseCase) {
        #expect(parse(c.line, manager: false) == .command(c.command))
    }

    @Test("non-managers still get the ordinary errors")
    func ordinaryErrorsForNonManagers() {
        #expect(parse("FOO", manager: false).code == .unknownCommand)
        #expect(parse("ORDER durian", manager: false).code == .unknownJuice)
        #expect(parse("ORDER mango 0", manager: false).code == .badArgument)
        #expect(parse("RESTOCK durian -1", manager: true).code == .unknownFruit)
        #expect(parse("RESTOCK kiwi -1", manager: true).code == .badArgument)
    }

    @Test("HTTP requests are refused and close the connection", arguments: [
        "GET / HTTP/1.1", "POST /x HTTP/1.0", "Host: example.com", "host: example.com", "HOST:",
        "get /index.html http/1.1", "PUT /a HTTP/2", "OPTIONS * HTTP/1.1", "DELETE /x HTTP/1.1",
        "HEAD / HTTP/1.1", "PATCH /x HTTP/1.1", "CONNECT example.com:443 HTTP/1.1", "TRACE / HTTP/1.1",
        "GET /a b c d e f g h HTTP/1.1", "  GET\t/\tHTTP/1.1  ",
    ])
    func http(_ line: String) {
        for manager in [true, false] {
            let result = parse(line, manager: manager)
            #expect(result.code == .badRequest, "\(result)")
            #expect(result.closes == true)
        }
    }

    @Test("lines that only look a little like HTTP are not HTTP", arguments: [
        "GET", "GET /", "ORDER GET", "ORDER mango HTTP/1.1", "GET HTTP", "AUTH HTTP/1.1", "Hosts: x", "FETCH / HTTP/1.1",
    ])
    func notHTTP(_ line: String) {
        let result = parse(line)
        #expect(result.closes != true, "\(result)")
    }

    @Test("errors quote at most 40 bytes of a client's token")
    func shortQuotes() throws {
        let long = String(repeating: "x", count: 1000)
        for line in ["ORDER " + long, long, "STOCK " + long, "RESTOCK " + long + " 1", "SET " + long + " 1"] {
            let message = try #require(parse(line).error?.message)
            #expect(message.contains(String(repeating: "x", count: 40) + "..."))
            #expect(!message.contains(String(repeating: "x", count: 41)))
            #expect(message.utf8.count < 100)
        }
        // A token of exactly 40 bytes is quoted whole, without "...".
        let forty = String(repeating: "y", count: 40)
        let m40 = try #require(parse("ORDER " + forty).error?.message)
        #expect(m40.contains("'\(forty)'"))
        // Cut on a character, never inside one: 13 three-byte characters are 39 bytes.
        let korean = String(repeating: "망", count: 100)
        let mk = try #require(parse("ORDER " + korean).error?.message)
        #expect(mk.contains("'" + String(repeating: "망", count: 13) + "...'"))
        #expect(!mk.contains(String(repeating: "망", count: 14)))
        // No message repeats the key, the amount or the AUTH token.
        for line in ["ORDER mango key=" + String(repeating: "k", count: 500), "RESTOCK kiwi " + String(repeating: "9", count: 500),
                     "ORDER mango " + String(repeating: "9", count: 500), "AUTH " + long + " extra"] {
            let message = try #require(parse(line).error?.message)
            #expect(message.utf8.count < 100, "\(message)")
        }
    }

    @Test("error messages are readable text", arguments: [
        "FOO", "ORDER durian", "STOCK durian", "PING x", "ORDER mango 0", "RESTOCK kiwi 0", "SET kiwi -1",
        "EVENTS maybe", "SINCE x", "AUTH", "ORDER mango key=", "MENU x", "GET / HTTP/1.1",
    ])
    func readableMessages(_ line: String) throws {
        let error = try #require(parse(line).error)
        #expect(error.message.count >= 10)
        #expect(error.message.unicodeScalars.allSatisfy { $0.value >= 0x20 && $0.value != 0x7F })
        var out: [UInt8] = []
        error.append(to: &out)
        #expect(out == bytes("ERR \(error.code.rawValue) \(error.message)\r\n"))
        #expect(error.line == "ERR \(error.code.rawValue) \(error.message)")
    }

    @Test("specific messages")
    func specificMessages() {
        #expect(parse("FOO").error?.message == "unknown command 'FOO', try HELP")
        #expect(parse("ORDER durian").error?.message == "no juice named 'durian', see MENU")
        #expect(parse("STOCK durian").error?.message == "no fruit named 'durian', see STOCK")
        #expect(parse("ORDER mango 0").error?.message == "count must be a whole number from 1 to 1000")
        #expect(parse("RESTOCK kiwi 0").error?.message == "amount must be a whole number from 1 to 1000000000")
        #expect(parse("SET kiwi -1").error?.message == "amount must be a whole number from 0 to 1000000000")
        #expect(parse("SET kiwi 1", manager: false).error?.message == "SET needs a manager: send AUTH <token> first")
    }

    @Test("which commands the store answers")
    func needsStore() {
        let store: [Command] = [.stock(fruit: nil), order(0), .restock(fruit: 0, amount: 1), .set(fruit: 0, amount: 0), .since(0), .stats,
                                .report(day: nil), .pair(code: "K7QF-M2XP"), .tills(.list)]
        let connection: [Command] = [.help, .ping, .menu, .menuAliases, .events(on: true), .auth(token: []), .till(credential: "1-x"), .quit]
        #expect(store.allSatisfy { $0.needsStore })
        #expect(!connection.contains { $0.needsStore })
        #expect(Verb.allCases.filter(\.needsManager) == [.restock, .set, .report, .tills])
    }
}

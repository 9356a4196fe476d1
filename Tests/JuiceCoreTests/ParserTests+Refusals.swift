import Testing
@testable import JuiceCore

/// Refusals that come before a command's arguments (bytes the protocol does not take, commands
/// only a manager may give, HTTP), what error messages say, and which commands need the store.
extension ParserTests {
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
        #expect(store.allSatisfy { $0.storeCommand != nil })
        #expect(!connection.contains { (command: Command) in command.storeCommand != nil })
        #expect(Verb.allCases.filter(\.needsManager) == [.restock, .set, .report, .tills])
    }
}

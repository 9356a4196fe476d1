import Testing
import Glibc
@testable import JuiceCore
import JuiceDomain
import JuiceStorage

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
}

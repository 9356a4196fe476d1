import Foundation
import JuiceCore
import JuiceDomain
import JuiceStorage
import JuicePlatform
import JuiceLog
import JuiceLoop
import JuiceServices
import JuiceLine
import JuiceHTTP
@testable import JuiceServer
import Testing

/// Every command over a real socket against an in-process server on its own port.
@Suite(.onOwnThreads) struct ProtocolTests {
    @Test func greetingIsAnEventThatMentionsHelp() async throws {
        try await RunningServer.with { s in
            let c = try s.client()
            #expect(c.greeting?.hasPrefix("EVENT HELLO juice-server \(JuiceVersion.current)") == true)
            #expect(c.greeting?.contains("HELP") == true)
        }
    }

    @Test func everyCommandAnswersAsDocumented() async throws {
        try await RunningServer.with { s in
            let c = try s.client()
            #expect(try c.command("PING") == "OK PONG")
            #expect(try c.command("HELP").hasPrefix("OK HELP "))
            #expect(try c.command("MENU") == "OK MENU strawberry=strawberry:16 banana=banana:2 kiwi=kiwi:3 pineapple=pineapple:2 strawberry-banana=strawberry:10+banana:1 mango=mango:3 mango-kiwi=mango:2+kiwi:1")
            #expect(try c.command("MENU ALIASES").hasPrefix("OK MENU ALIASES fruit:strawberry=딸기 "))
            #expect(try c.command("STOCK") == "OK STOCK seq=0 strawberry=10 banana=10 pineapple=10 kiwi=10 mango=10")
            #expect(try c.command("STOCK 키위") == "OK STOCK seq=0 kiwi=10")
            #expect(try c.command("ORDER\tmango-kiwi  2") == "OK ORDER mango-kiwi 2 seq=1 mango=6 kiwi=8 amount=11000")
            #expect(try c.nextEvent() == "EVENT STOCK seq=1 mango=6 kiwi=8")
            #expect(try c.command("RESTOCK kiwi 5") == "OK RESTOCK seq=2 kiwi=13")
            #expect(try c.command("SET KIWI 2") == "OK SET seq=3 kiwi=2")
            #expect(try c.command("ORDER strawberry-banana 2") == "ERR OUT_OF_STOCK needs strawberry=20 has strawberry=10")
            #expect(try c.command("EVENTS OFF") == "OK EVENTS off")
            #expect(try c.command("events on") == "OK EVENTS on")
            let stats = try c.command("STATS")
            #expect(stats.hasPrefix("OK STATS "))
            let v = values(stats)
            #expect(v["clients"] == 1 && v["orders_served"] == 1 && v["orders_refused"] == 1 && v["sold_mango-kiwi"] == 2)
            #expect(v["uptime_s"] != nil && v["sold_strawberry"] == 0)
            #expect(try c.command("AUTH secret") == "ERR AUTH_FAILED no manager token is configured")
            #expect(try c.command("QUIT") == "OK BYE")
            #expect(c.closedByServer())
        }
    }

    @Test(arguments: [
        ("FLY away", "UNKNOWN_COMMAND"), ("ORDER dragonfruit", "UNKNOWN_JUICE"), ("RESTOCK durian 3", "UNKNOWN_FRUIT"),
        ("RESTOCK kiwi -1", "BAD_ARGUMENT"), ("RESTOCK kiwi 0", "BAD_ARGUMENT"), ("SET kiwi 18446744073709551616", "BAD_ARGUMENT"),
        ("ORDER banana 1001", "BAD_ARGUMENT"), ("PING extra", "BAD_ARGUMENT"), ("STOCK kiwi mango", "BAD_ARGUMENT"),
        ("EVENTS maybe", "BAD_ARGUMENT"), ("RESTOCK kiwi 999999991", "OVER_LIMIT"), ("ORDER strawberry", "OUT_OF_STOCK"),
        ("ORDER ban\u{1}ana", "BAD_REQUEST"),
    ])
    func refusalsHaveCodesAndChangeNothing(line: String, code: String) async throws {
        try await RunningServer.with { s in
            let c = try s.client()
            let watcher = try s.client()
            #expect(try watcher.command("PING") == "OK PONG")
            let reply = try c.command(line)
            #expect(reply.hasPrefix("ERR \(code) "), "\(line) -> \(reply)")
            #expect(try c.command("STOCK") == "OK STOCK seq=0 strawberry=10 banana=10 pineapple=10 kiwi=10 mango=10")
            // Nothing was broadcast: the watcher's next line is the reply to its own PING.
            #expect(try watcher.command("PING") == "OK PONG")
            #expect(watcher.events.isEmpty)
        }
    }

    @Test func invalidUTF8AndControlBytesAreBadRequests() async throws {
        try await RunningServer.with { s in
            let c = try s.client()
            for blob: [UInt8] in [[0xC3, 0x28], [0xED, 0xA0, 0x80], [0x00], [0x1B, 0x5B, 0x32, 0x4A], [0xC2, 0x85]] {
                try c.sendRaw(Array("ORDER banana".utf8) + blob + [13, 10])
                #expect(try c.reply().hasPrefix("ERR BAD_REQUEST "))
            }
            // The connection is still usable.
            #expect(try c.command("PING") == "OK PONG")
        }
    }

    @Test func blankLinesGetNoReplyAndLineEndingsMayMix() async throws {
        try await RunningServer.with { s in
            let c = try s.client()
            try c.sendRaw(Array("\r\n\n \t \nstock kiwi\nOrDeR Banana\r\nPING\n".utf8))
            #expect(try c.reply() == "OK STOCK seq=0 kiwi=10")
            #expect(try c.reply() == "OK ORDER banana 1 seq=1 banana=8 amount=4000")
            #expect(try c.reply() == "OK PONG")
        }
    }

    @Test func lineTooLongGetsAnErrorThenClose() async throws {
        try await RunningServer.with { s in
            let ok = try s.client()
            try ok.sendRaw(Array("PING".utf8) + Array(repeating: 0x20, count: 4092) + [13, 10])
            #expect(try ok.reply() == "OK PONG")
            let c = try s.client()
            try c.sendRaw(Array(repeating: UInt8(ascii: "x"), count: 10_000) + [13, 10])
            #expect(try c.reply().hasPrefix("ERR LINE_TOO_LONG "))
            #expect(c.closedByServer())
        }
    }

    /// Ctrl-C in telnet sends IAC IP IAC DO TIMING-MARK, then hides all output until the mark is
    /// answered: the partial line is dropped, and the answer comes before the next reply.
    @Test func telnetCtrlCIsAnsweredSoTheClientKeepsShowingOutput() async throws {
        try await RunningServer.with { s in
            let c = try s.client()
            try c.sendRaw(Array("ORDER ban".utf8) + [0xFF, 0xF4, 0xFF, 0xFD, 0x06] + Array("PING\r\n".utf8))
            let line = try c.readLine()
            #expect(Array(line.utf8.prefix(3)) == [0xEF, 0xBF, 0xBD] || line.unicodeScalars.first == "\u{FFFD}",
                    "expected the WONT TIMING-MARK bytes before the reply, got \(Array(line.utf8))")
            #expect(line.hasSuffix("OK PONG"))
            #expect(try c.command("STOCK banana") == "OK STOCK seq=0 banana=10")
        }
    }

    @Test func koreanNamesWorkEverywhere() async throws {
        try await RunningServer.with { s in
            let c = try s.client()
            #expect(try c.command("ORDER 망키쥬스") == "OK ORDER mango-kiwi 1 seq=1 mango=8 kiwi=9 amount=5500")
            #expect(try c.command("RESTOCK 키위 1") == "OK RESTOCK seq=2 kiwi=10")
            #expect(try c.command("SET 딸기 3") == "OK SET seq=3 strawberry=3")
        }
    }

    @Test func initialStockFlagSetsEveryFruit() async throws {
        let s = try await RunningServer.start { $0.initialStock = 7 }
        #expect(try s.client().command("STOCK") == "OK STOCK seq=0 strawberry=7 banana=7 pineapple=7 kiwi=7 mango=7")
        await s.stop()
    }
}

import Foundation
import Glibc
import Testing

/// The board against the real juice-server, stopped and restarted mid-stream on the same port
/// and data directory: the board must print every change exactly once, in order, and end on
/// the server's own STOCK.
@Suite(.serialized, .onOwnThreads) struct LiveReconnectTests {
    /// Changes that always succeed on the default menu (restock, then use what was restocked).
    static func change(_ i: Int) -> String {
        switch i % 4 {
        case 0: return "RESTOCK banana 3"
        case 1: return "ORDER banana"
        case 2: return "RESTOCK kiwi 2"
        default: return "SET mango \(i % 50)"
        }
    }

    /// Makes `count` changes over one connection, retrying the connect while the server restarts.
    static func makeChanges(_ range: Range<Int>, port: Int, pauseMicroseconds: UInt32 = 0, done: ((Int) -> Void)? = nil) throws {
        var client: LineClient? = nil
        let connected = eventually { client = try? LineClient(port: port); return client != nil }
        guard connected, let client else { throw TestError("no server on \(port)") }
        _ = try client.command("EVENTS OFF")
        for i in range {
            let reply = try client.command(change(i))
            guard reply.hasPrefix("OK") else { throw TestError("\(change(i)) got \(reply)") }
            done?(i)
            if pauseMicroseconds > 0 { usleep(pauseMicroseconds) }
        }
    }

    @Test(.timeLimit(.minutes(3)))
    func boardPrintsEverySeqOnceAcrossServerRestarts() throws {
        let server = executable("juice-server"), board = executable("juice-board")
        try #require(FileManager.default.isExecutableFile(atPath: server), "no juice-server at \(server)")
        try #require(FileManager.default.isExecutableFile(atPath: board), "no juice-board at \(board)")
        try Self.withServerAndBoard("juice-board-live") { live, display, work in
            let data = work + "/data", port = live.port

            func boardReached(_ seq: Int) -> Bool { printedSeqs(display.output).contains(seq) }
            #expect(eventually { boardReached(0) }, "board never showed the initial stock: \(display.errors)")

            // 1. Live changes, seen as events.
            try Self.makeChanges(0..<20, port: port)
            #expect(eventually { boardReached(20) }, "board stuck before seq 20: \(display.output)")

            // 2. Server stopped (SIGTERM: it says BYE), restarted on the same port and data, and
            //    changes made at once, before the board's backoff lets it back in: only SINCE
            //    can tell the board about them.
            live.stop()
            live = try ExecutableServer.restart(["--data", data], port: port)
            try Self.makeChanges(20..<40, port: port)
            #expect(eventually { boardReached(40) }, "board did not catch up to 40: \(display.output) \(display.errors)")

            // 3. Stopped while a cashier is busy: the changes before and after the gap all show.
            let busy = DispatchGroup()
            let failure = Locked<String?>(nil)
            busy.enter()
            // On a thread of its own: a blocking loop on Dispatch's global queue takes a thread of
            // the pool Swift's tasks run on (on Linux, as many threads as cores), starving them.
            Thread {
                defer { busy.leave() }
                // A cashier that carries on through the restart: cut off, it reconnects and goes on
                // with the next change (whether the cut one was applied, the server's seq will say).
                var next = 40
                while next < 70 {
                    do {
                        try Self.makeChanges(next..<70, port: port, pauseMicroseconds: 5_000) { next = $0 + 1 }
                    } catch {
                        failure.update { $0 = "\(error)" }
                        next += 1 // the cut-off change may or may not have been applied: skip it
                    }
                }
            }.start()
            usleep(50_000)
            live.stop()
            live = try ExecutableServer.restart(["--data", data], port: port)
            busy.wait()
            try Self.makeChanges(70..<90, port: port)

            // The server's own view is the truth the board must end on.
            let truth = try LineClient(port: port).command("STOCK")
            let final = try #require(Int(truth.split(separator: " ")[2].dropFirst(4)), "STOCK reply: \(truth)")
            #expect(final >= 80, "too few changes applied (\(failure.get ?? "no error")): \(truth)")
            #expect(eventually { boardReached(final) }, "board did not reach \(final): \(display.output) \(display.errors)")

            let seqs = printedSeqs(display.output)
            #expect(seqs == Array(0...final), "missing or repeated seqs: \(seqs)")
            let lastLine = display.output.split(separator: "\n").last.map(String.init)
            #expect(lastLine == String(truth.dropFirst("OK STOCK ".count)), "board ended on \(lastLine ?? "nothing"), server says \(truth)")

            // SIGTERM ends the board cleanly (not by the SIGKILL fallback).
            let status = display.stop()
            #expect(status == 0, "board did not exit on SIGTERM: status \(status)")
        }
    }

    /// Runs `body` with a juice-server on port 0 over a fresh data directory (`work`/data) and a
    /// `--plain` juice-board watching it; then stops both (the server `body` left running) and
    /// removes `work`.
    static func withServerAndBoard(_ name: String,
                                   _ body: (_ server: inout ExecutableServer, _ board: ChildProcess, _ work: String) throws -> Void) throws {
        let work = temporaryDirectory(name)
        defer { try? FileManager.default.removeItem(atPath: work) }
        var server = try ExecutableServer(["--data", work + "/data", "--port", "0"])
        let board = try ChildProcess(executable("juice-board"), ["--plain", "--port", String(server.port)], directory: work)
        defer { board.stop(); server.stop() }
        try body(&server, board, work)
    }
}

/// A shop that changes its menu while the board is away: on reconnect the board sees the new
/// MENU, takes a fresh STOCK and shows the new fruit, with nothing hard-coded in the board.
@Suite(.serialized, .onOwnThreads) struct LiveMenuChangeTests {
    @Test(.timeLimit(.minutes(3)))
    func aMenuChangedAcrossARestartShowsUpOnTheBoard() throws {
        try #require(FileManager.default.isExecutableFile(atPath: executable("juice-server")))
        try LiveReconnectTests.withServerAndBoard("juice-board-menu") { live, display, work in
            let data = work + "/data", port = live.port
            #expect(eventually { printedSeqs(display.output).contains(0) })
            try LiveReconnectTests.makeChanges(0..<3, port: port)
            #expect(eventually { printedSeqs(display.output).contains(3) })

            // The server's own menu file, plus one fruit and one juice made from it.
            let printed = try Executables.run(executable("juice-server"), ["--print-menu"])
            var menu = try #require(try JSONSerialization.jsonObject(with: Data(printed.output.utf8)) as? [String: Any])
            menu["fruits"] = (menu["fruits"] as? [Any] ?? []) + [["name": "lemon", "aliases": ["레몬"], "initial_stock": 7]]
            menu["juices"] = (menu["juices"] as? [Any] ?? []) + [["name": "lemonade", "aliases": ["레모네이드"],
                                                                  "price": 3_500, "recipe": [["fruit": "lemon", "amount": 2]]]]
            let menuPath = work + "/menu.json"
            try JSONSerialization.data(withJSONObject: menu).write(to: URL(fileURLWithPath: menuPath))

            live.stop()
            live = try ExecutableServer.restart(["--data", data, "--menu", menuPath], port: port)
            try LiveReconnectTests.makeChanges(3..<5, port: port)

            let truth = try LineClient(port: port).command("STOCK")
            #expect(truth.contains(" lemon=7"), "server STOCK: \(truth)")
            let expectedLast = String(truth.dropFirst("OK STOCK ".count))
            #expect(eventually { display.output.split(separator: "\n").last.map(String.init) == expectedLast },
                    "board: \(display.output) \(display.errors); server: \(truth)")
            #expect(printedSeqs(display.output).last == 5)
        }
    }
}

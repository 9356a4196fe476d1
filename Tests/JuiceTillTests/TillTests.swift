import Foundation
import Glibc
import Testing
import JuiceClient
import JuiceTill

/// juice-till, the real executable: piped, and full screen in tmux.
@Suite(.serialized, .onOwnThreads) struct TillTests {
    static let till = Executables.path("juice-till")

    /// The mango-kiwi row of the till's screen: how many more it says it can make.
    static func mangoKiwiCount(_ screen: String) -> String? {
        screen.split(separator: "\n").first { $0.hasPrefix(" 7  mango-kiwi") }
            .flatMap { $0.split(separator: " ").last.map(String.init) }
    }

    /// Piped: one result a line. The server is killed right after the journal sync of the second
    /// order (its reply never sent) and restarted: the till's result is `made`, and sold went up
    /// by exactly the orders made.
    @Test(.timeLimit(.minutes(3)))
    func pipedOrdersGetOneResultEachAndSurviveACrash() async throws {
        let directory = TemporaryDirectory("juice-till-piped"), work = directory.path
        let cue = work + "/kill-now", fifo = work + "/orders", arguments = ["--data", work + "/data"]
        let first = try ExecutableServer(arguments, environment: ["JUICE_TEST_KILL_AFTER_SYNC": cue])
        #expect(mkfifo(fifo, 0o600) == 0)
        let process = try ChildProcess(Self.till, ["--port", String(first.port), "--till-id", "pipe1"], directory: work,
                                       environment: ["XDG_STATE_HOME": work + "/state"], stdinPath: fifo)
        defer { process.stop() }
        let orders = try #require(FileHandle(forWritingAtPath: fifo))
        orders.write(Data("mango-kiwi 2\ndragonfruit\n".utf8))
        let settled1 = await settles { process.output.split(separator: "\n").count == 2 }
        #expect(settled1, "\(process.output) \(process.errors)")
        let lines = process.output.split(separator: "\n").map(String.init)
        #expect(lines.first == "made mango-kiwi 2 seq=1 kiwi=8 mango=6 · ₩11,000")
        #expect(lines.last?.hasPrefix("error UNKNOWN_JUICE") == true)

        #expect(FileManager.default.createFile(atPath: cue, contents: nil))
        orders.write(Data("mango-kiwi\n".utf8))
        #expect(first.waitForExit() == -SIGKILL, "the hook did not kill the server: \(first.log())")
        try FileManager.default.removeItem(atPath: cue)
        let second = try ExecutableServer.restart(arguments, port: first.port)
        let settled2 = await settles { process.output.split(separator: "\n").count == 3 }
        #expect(settled2, "\(process.output) \(process.errors)")
        #expect(process.output.split(separator: "\n").last == "made mango-kiwi 1 seq=2 kiwi=7 mango=4 · ₩5,500")
        try orders.close()
        let settled3 = await settles { !process.isRunning }
        #expect(settled3, "the till did not end with its input")
        // One line (dragonfruit) was an error: a script checking `$?` sees it.
        #expect(process.exitStatus == 1)
        let stats = try await client(second).stats()
        #expect(stats.sold[6] == 3 && stats.ordersServed == 2, "\(stats)")
        // Keys outlive the till: its counter is on disk (three orders, three keys).
        #expect(readText(work + "/state/juice-till/pipe1.counter") == "3\n")
        second.stop()
    }

    /// Full screen in tmux: order by key and see the count drop; `7x2` orders two; with the
    /// server stopped an order waits ("offline: 1 order waiting") and lands once after the restart;
    /// `r` restocks, asking for the manager token when the server wants one.
    @Test(.requires(.tmux), .timeLimit(.minutes(3)))
    func tillInTmuxSellsByKeyAndAcrossARestart() async throws {
        try OutsideTool.tmux.require()
        // The till was paired before it starts.
        let shop = try await ShopWithPairedTill("juice-till-tmux")
        var server = shop.server
        let pane = try TmuxSession(shop.tillCommand(id: "tmux1", token: ["-u", "JUICE_MANAGER_TOKEN"]))
        defer { pane.kill() }
        let settled4 = await settles { Self.mangoKiwiCount(pane.screen) == "5" }
        #expect(settled4, "screen:\n\(pane.screen)")

        pane.type("7")
        let settled5 = await settles { Self.mangoKiwiCount(pane.screen) == "4" }
        #expect(settled5, "screen:\n\(pane.screen)")
        pane.type("7x2")
        let settled6 = await settles { Self.mangoKiwiCount(pane.screen) == "2" }
        #expect(settled6, "screen:\n\(pane.screen)")
        let settled7 = await settles { pane.screen.contains("made mango-kiwi 2") }
        #expect(settled7, "screen:\n\(pane.screen)")

        server.stop()
        let settled8 = await settles { pane.screen.contains("offline") }
        #expect(settled8, "screen:\n\(pane.screen)")
        pane.type("7")
        let settled9 = await settles { pane.screen.contains("offline: 1 order waiting") }
        #expect(settled9, "screen:\n\(pane.screen)")
        server = try shop.restart()
        let settled10 = await settles { Self.mangoKiwiCount(pane.screen) == "1" }
        #expect(settled10, "screen:\n\(pane.screen)")
        let settled11 = await settles { pane.screen.contains("made mango-kiwi 1") }
        #expect(settled11, "screen:\n\(pane.screen)")
        let stats = try await client(server).stats()
        #expect(stats.sold[6] == 4 && stats.ordersServed == 3, "\(stats)")

        // A restock asks for the token once the server refuses it without one.
        pane.type("r")
        pane.type("kiwi\r")
        pane.type("5\r")
        let settled12 = await settles { pane.screen.contains("manager token:") }
        #expect(settled12, "screen:\n\(pane.screen)")
        pane.type(ShopWithPairedTill.token + "\r")
        let settled13 = await settles { pane.screen.contains("restocked kiwi +5: 11") }
        #expect(settled13, "screen:\n\(pane.screen)")

        pane.type("q")
        let settled14 = await settles { !pane.screen.contains("juice-till") }
        #expect(settled14, "the till did not quit:\n\(pane.screen)")
        server.stop()
    }

    @Test func keyRules() {
        var input = TillInput()
        #expect(input.key(UInt8(ascii: "3"), now: 0) == [.redraw])
        #expect(input.tick(now: 0.1) == [])
        #expect(input.tick(now: 1) == [.order(item: 3, count: 1)])
        _ = input.key(UInt8(ascii: "3"), now: 2)
        _ = input.key(UInt8(ascii: "x"), now: 2.1)
        #expect(input.key(UInt8(ascii: "2"), now: 2.2) == [.order(item: 3, count: 2)])
        _ = input.key(UInt8(ascii: "1"), now: 3)
        #expect(input.key(UInt8(ascii: "2"), now: 3.1) == [.order(item: 1, count: 1), .redraw]) // 2 is picked next
        #expect(input.key(13, now: 3.2) == [.order(item: 2, count: 1)])
        for byte in Array("rkiwi\r5\r".utf8).dropLast() { _ = input.key(byte, now: 4) }
        #expect(input.key(13, now: 4) == [.restock(fruit: "kiwi", amount: 5, token: nil)])
        input.askToken(fruit: "kiwi", amount: 5)
        for byte in Array("s3cret".utf8) { _ = input.key(byte, now: 5) }
        #expect(input.hint == "manager token: ******")
        #expect(input.key(13, now: 5) == [.restock(fruit: "kiwi", amount: 5, token: "s3cret")])
        #expect(input.key(UInt8(ascii: "q"), now: 6) == [.quit])
    }

    /// Piped, a run whose every line was answered without an error exits 0.
    @Test(.timeLimit(.minutes(2)))
    func pipedWithoutErrorsExitsZero() async throws {
        let directory = TemporaryDirectory("juice-till-piped-ok"), work = directory.path
        let process = try await pipedTill("kiwi\nmango-kiwi 20\n", tillID: "pipe2", in: work)
        defer { process.stop() }
        #expect(process.output.hasPrefix("made kiwi 1 ") && process.output.contains("out-of-stock mango-kiwi 20"), "\(process.output)")
        #expect(process.exitStatus == 0, "an out-of-stock is an answer, not an error")
    }

    /// In tmux, the till's other promises: started while the server is down it says it has no
    /// menu and a juice key says it sold nothing; an empty JUICE_MANAGER_TOKEN is no token (the
    /// restock asks for one, as the server reads it); after an out-of-stock, `r` restocks the
    /// short fruit; `q` with an order waiting prints its warning after the screen is restored
    /// and exits 1.
    @Test(.requires(.tmux), .timeLimit(.minutes(3)))
    func tillStartedOfflineRestocksTheShortFruitAndQuitsWithAWarning() async throws {
        try OutsideTool.tmux.require()
        // Paired while the server was up (the pairing is on its disk): it sells once it is back.
        let shop = try await ShopWithPairedTill("juice-till-tmux-quit")
        let down = shop.server
        down.stop()
        let till = shop.tillCommand(id: "tmux2", token: ["JUICE_MANAGER_TOKEN="])
        // The pane outlives the till, so what it printed on leaving and its status stay on screen.
        // It waits on a tmux channel ($TMUX: the pane's own server) that the test signals when
        // done: a signal would not end it (the test's children may have signals blocked, and
        // tmux waits for its panes), so neither would kill-server alone.
        let pane = try TmuxSession(till + "; echo \"till exit=$?\"; exec tmux wait-for juice-till-done")
        defer {
            _ = try? Executables.run(TmuxSession.path!, ["-L", pane.name, "wait-for", "-S", "juice-till-done"])
            pane.kill()
        }
        #expect(await settles { pane.screen.contains("no menu yet") }, "screen:\n\(pane.screen)")
        pane.type("7\r")
        #expect(await settles { pane.screen.contains("not sold: no menu yet") }, "screen:\n\(pane.screen)")

        let server = try shop.restart()
        #expect(await settles { Self.mangoKiwiCount(pane.screen) == "5" }, "screen:\n\(pane.screen)")
        #expect(try await client(server).stats().ordersServed == 0, "the key pressed offline was sold")
        pane.type("7x6")
        #expect(await settles { pane.screen.contains("out-of-stock mango-kiwi 6 needs mango=12 has mango=10 · r: restock mango") },
                "screen:\n\(pane.screen)")
        pane.type("r")
        #expect(await settles { pane.screen.contains("restock mango by how many?") }, "screen:\n\(pane.screen)")
        pane.type("4\r")
        #expect(await settles { pane.screen.contains("manager token:") }, "screen:\n\(pane.screen)")
        pane.type(ShopWithPairedTill.token + "\r")
        #expect(await settles { pane.screen.contains("restocked mango +4: 14") }, "screen:\n\(pane.screen)")

        server.stop()
        pane.type("7")
        #expect(await settles { pane.screen.contains("offline: 1 order waiting") }, "screen:\n\(pane.screen)")
        pane.type("q")
        #expect(await settles { pane.screen.contains("till exit=1") }, "screen:\n\(pane.screen)")
        #expect(pane.screen.contains("juice-till: quit with 1 order(s) unanswered"), "screen:\n\(pane.screen)")
    }

    @Test func shortFruitAndWaitRules() {
        var input = TillInput()
        _ = input.key(UInt8(ascii: "3"), now: 0)
        #expect(input.hint == "3… orders one in 0.8 s; x then a digit for more, Enter for one now")
        #expect(input.key(13, now: 0.1) == [.order(item: 3, count: 1)])
        input.shortFruit = "mango"
        _ = input.key(UInt8(ascii: "r"), now: 1)
        #expect(input.hint == "restock mango by how many? ")
        _ = input.key(UInt8(ascii: "4"), now: 1)
        #expect(input.key(13, now: 1) == [.restock(fruit: "mango", amount: 4, token: nil)])
        _ = input.key(UInt8(ascii: "r"), now: 2)
        #expect(input.hint == "restock which fruit? ", "the short fruit is offered once")
        #expect(TillOptions.managerToken(environment: ["JUICE_MANAGER_TOKEN": ""]) == nil)
        #expect(TillOptions.managerToken(environment: ["JUICE_MANAGER_TOKEN": "s3cret"]) == "s3cret")
        #expect(TillOptions.managerToken(environment: [:]) == nil)
    }

    @Test func helpAndBadFlags() throws {
        let help = try Executables.run(Self.till, ["--help"])
        #expect(help.status == 0 && help.output.contains("--till-id") && help.output.contains("3x2"))
        #expect(help.output.contains("0.8 s after the key") && help.output.contains("Enter or space orders at once"), "\(help.output)")
        let bad = try Executables.run(Self.till, ["--till-id", "no spaces"])
        #expect(bad.status == 2 && bad.output.contains("--till-id"))
    }
}

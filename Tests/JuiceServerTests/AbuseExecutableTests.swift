import Foundation
import Glibc
import Testing

/// The abuse limits and operator-facing mismatches, checked on the built `juice-server` as an
/// operator runs it: its log file, its flags, its exit status. Serialized: the flood loads the
/// machine on its own.
@Suite(.serialized, .onOwnThreads) struct AbuseExecutableTests {
    /// The reviewer's case: 180 wrong guesses over 60 reconnects, then the right token. Only the
    /// first 10 are checked; the rest, and the right token, are refused unchecked, and the block
    /// is logged once.
    @Test func guessesFromOneAddressAreLimitedAcrossReconnects() throws {
        let server = try ExecutableServer(["--in-memory"], environment: ["JUICE_MANAGER_TOKEN": "s3cret"])
        var checked = 0
        var refusedUnchecked = 0
        for connection in 0..<60 {
            let p = try server.peer()
            _ = p.nextLine()
            for guess in 0..<3 {
                let reply = p.ask("AUTH guess-\(connection)-\(guess)")
                if reply.hasPrefix("ERR AUTH_FAILED wrong token") { checked += 1 }
                if reply.hasPrefix("ERR AUTH_FAILED too many failures, retry in ") { refusedUnchecked += 1 }
            }
            #expect(p.waitClosed())
        }
        #expect(checked == 10 && refusedUnchecked == 170, "checked \(checked), refused unchecked \(refusedUnchecked)")
        let manager = try server.peer()
        _ = manager.nextLine()
        #expect(manager.ask("AUTH s3cret").hasPrefix("ERR AUTH_FAILED too many failures, retry in "))
        // Reads stay open (orders need a paired till, whose credential no AUTH limit touches).
        #expect(manager.ask("STOCK banana") == "OK STOCK seq=0 banana=10")
        // Read once the server stopped, which writes out every line it logged.
        #expect(server.terminate() == 0)
        let log = server.log()
        #expect(log.components(separatedBy: "its AUTH is refused unchecked").count - 1 == 1, "\(log)")
        #expect(log.components(separatedBy: "AUTH refused for 127.0.0.1:").count - 1 == 10)
        #expect(!log.contains("s3cret"))
    }

    /// 3,000 connect/close cycles used to write 6,005 lines. Now each kind of line is limited to
    /// 20 a second plus one summary line: the bound below allows that much for every second the
    /// run took (however slow the machine), far under two lines per cycle.
    @Test func aConnectFloodWritesABoundedLogWithASummary() throws {
        let server = try ExecutableServer(["--in-memory"])
        let started = Date()
        let cycles = 3000
        for _ in 0..<cycles {
            let p = try server.peer()
            p.close()
        }
        // Every connection above has been accepted once this one is greeted.
        let last = try server.peer()
        #expect(last.nextLine() != .timeout)
        last.close()
        #expect(server.terminate() == 0)
        let seconds = Int(Date().timeIntervalSince(started).rounded(.up))
        let lines = server.log().split(separator: "\n")
        let bound = 10 + 2 * 21 * (seconds + 1)
        #expect(lines.count <= bound, "\(lines.count) log lines for \(cycles) connections in \(seconds) s (bound \(bound))")
        #expect(lines.count < cycles / 2)
        #expect(lines.contains { $0.contains("similar lines suppressed") }, "no summary: \(lines.suffix(5))")
        #expect(lines.contains { $0.contains("stopped") }, "the stop line is never suppressed")
    }

    @Test func logLevelWarnHidesConnectsButKeepsRefusalsAndStartStop() throws {
        let server = try ExecutableServer(["--in-memory", "--log-level", "warn"])
        let p = try server.peer()
        _ = p.nextLine()
        p.write("GET / HTTP/1.1\r\n")
        #expect(p.waitClosed())
        #expect(server.terminate() == 0)
        let log = server.log()
        #expect(!log.contains(" connect 127.0.0.1"), "\(log)")
        #expect(!log.contains(" disconnect 127.0.0.1"), "\(log)")
        #expect(log.contains("warning: closing 127.0.0.1"), "\(log)")
        #expect(log.contains("serving in memory") && log.contains("stopped"), "\(log)")
    }

    @Test func aBogusLogLevelExitsTwoWithAMessage() throws {
        let (status, output) = try ExecutableServer.run(["--in-memory", "--log-level", "bogus"])
        #expect(status == 2)
        #expect(output.contains("--log-level") && output.contains("bogus"), "\(output)")
        let (helpStatus, help) = try ExecutableServer.run(["--help"])
        #expect(helpStatus == 0 && help.contains("--log-level"))
    }

    /// PROTOCOL.md: the token file's first line, trimmed. A second line (a note) is not part of it.
    @Test func aTokenFileWithASecondLineUsesItsFirstLine() throws {
        let server = try HardeningTests.serverWithTokenFile("s3cret\n# rotated\n")
        let p = try server.peer()
        _ = p.nextLine()
        #expect(p.ask("AUTH s3cret") == "OK AUTH")
        #expect(p.ask("SET kiwi 1") == "OK SET seq=1 kiwi=1")
    }

    /// U+0085 passes a byte check for ASCII controls, but every AUTH line holding it is refused:
    /// such a token would lock every manager out. It is refused at start instead.
    @Test func aTokenWithAC1ControlIsRefusedAtStart() throws {
        let (status, output) = try ExecutableServer.run(["--in-memory", "--port", "0"],
                                                        environment: ["JUICE_MANAGER_TOKEN": "s3\u{85}cret"])
        #expect(status == 2, "\(output)")
        #expect(output.contains("manager token") && output.contains("U+0085"), "\(output)")
    }

    /// A journal sync that never returns (the debug-only hook stands in for a disk that stopped
    /// answering): the forced stop cannot make the journal durable, so the exit status must not
    /// tell a supervisor the stop was clean.
    @Test func aShutdownThatCannotMakeTheJournalDurableExitsThree() throws {
        let dir = temporaryDirectory("juice-hang")
        defer { removeTemporary(dir) }
        let server = try ExecutableServer(["--data", dir + "/data"], environment: ["JUICE_TEST_HANG_JOURNAL_SYNC": "1"])
        let c = try server.client()
        try c.send("ORDER banana")
        // The order is written (its record is in the file) but its sync never ends.
        let journal = dir + "/data/journal"
        #expect(eventually {
            ((try? Data(contentsOf: URL(fileURLWithPath: journal))).map { String(decoding: $0, as: UTF8.self) } ?? "").contains("banana=8")
        })
        server.signal(SIGTERM)
        #expect(server.waitForExit() == 3, "\(server.log())")
        #expect(server.log().contains("stopping without it"))
        let reply = try? c.readLine(timeout: 5)
        #expect(reply.map { !$0.hasPrefix("OK ORDER") } ?? true, "acknowledged an order that was never durable")
    }
}

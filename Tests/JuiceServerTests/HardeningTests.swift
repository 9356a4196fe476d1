import Foundation
import Glibc
import JuiceCore
@testable import JuiceServer
import Testing

/// Hardening: fuzzing, hostile and slow clients, resource limits, signals, auth, over real sockets
/// against the real server (in-process where convenient, the built binary for memory, signals,
/// environment and flags). Serialized: several of these load a 2-core machine on their own.
@Suite(.serialized) struct HardeningTests {
    // MARK: - 1. Fuzz

    @Test func fuzzedInputNeverHurtsOtherClientsOrChangesStockExceptByValidCommands() async throws {
        let s = try await RunningServer.start()
        let fuzzers = 4
        let okReplies = Locked<[(seq: Int, line: String)]>([])
        let problems = Locked<[String]>([])
        let fuzzersDone = Locked(0)
        let finalSeq = Locked<Int?>(nil)
        let watched = Locked<[String]>([])
        let pings = Locked(0)
        let stats = Locked((batches: 0, strings: 0, reconnects: 0, unexpectedCloses: 0))
        let watcher = try LineClient.peer(port: s.port)
        guard case .line(let hello) = watcher.nextLine(), hello.hasPrefix("EVENT HELLO") else {
            Issue.record("no greeting for the watcher")
            return
        }
        let steady = try LineClient.peer(port: s.port)
        _ = steady.nextLine()
        #expect(steady.ask("EVENTS OFF") == "OK EVENTS off")

        onThreads(fuzzers + 2) { n in
            if n < fuzzers {
                Fuzz.run(port: s.port, seed: 0x5EED_0000 + UInt64(n), raw: n % 2 == 1, batches: 45,
                         okReplies: okReplies, problems: problems, stats: stats)
                fuzzersDone.update { $0 += 1 }
            } else if n == fuzzers {
                // The well-behaved client: PING and STOCK keep working during and after the fuzz.
                var lastSeq = -1
                while true {
                    let done = fuzzersDone.get == fuzzers
                    let pong = steady.ask("PING")
                    let stock = steady.ask("STOCK")
                    let seq = values(stock)["seq"] ?? -1
                    if pong != "OK PONG" || !stock.hasPrefix("OK STOCK seq=") || seq < lastSeq {
                        problems.update { $0.append("well-behaved client got '\(pong)' / '\(stock)' (last seq \(lastSeq))") }
                        break
                    }
                    lastSeq = seq
                    pings.update { $0 += 1 }
                    if done {
                        finalSeq.update { $0 = seq }
                        break
                    }
                    usleep(5_000)
                }
                if finalSeq.get == nil { finalSeq.update { $0 = -1 } }
            } else {
                // The watcher: every change as an event, in seq order.
                let deadline = Date().addingTimeInterval(120)
                while Date() < deadline {
                    if let target = finalSeq.get {
                        let seen = watched.read { $0.last.flatMap { values($0)["seq"] } ?? 0 }
                        if target < 0 || seen >= target { break }
                    }
                    switch watcher.nextLine(timeout: 0.3) {
                    case .line(let l):
                        if l.hasPrefix("EVENT STOCK") { watched.update { $0.append(l) } }
                    case .closed:
                        problems.update { $0.append("the watcher was disconnected") }
                        return
                    case .timeout:
                        continue
                    }
                }
            }
        }

        let run = stats.get
        let found = problems.get
        #expect(found.isEmpty, "\(found.prefix(10))")
        #expect(run.strings >= 4000, "only \(run.strings) fuzz strings were sent")
        #expect(pings.get > 0)
        // The final state, from a fresh client, and the server still answers.
        let check = try LineClient.peer(port: s.port)
        _ = check.nextLine()
        #expect(check.ask("PING") == "OK PONG")
        let stock = check.ask("STOCK")
        let final = values(stock)
        let seq = final["seq"] ?? -1
        #expect(seq == finalSeq.get)
        // Every applied change was answered with exactly one OK reply: seqs 1...seq, once each.
        let oks = okReplies.get
        let okSeqs = oks.map(\.seq).sorted()
        #expect(okSeqs == Array(stride(from: 1, through: max(seq, 0), by: 1)),
                "OK changes: \(okSeqs.count), final seq \(seq); duplicates or gaps")
        // The watcher saw exactly those seqs, in order, and the replies agree with the events.
        let events = watched.get
        let eventSeqs = events.map { values($0)["seq"] ?? -1 }
        #expect(eventSeqs == Array(stride(from: 1, through: max(seq, 0), by: 1)))
        var eventBySeq: [Int: [String: Int]] = [:]
        for e in events { eventBySeq[values(e)["seq"] ?? -1] = values(e) }
        var mismatches: [String] = []
        for ok in oks where eventBySeq[ok.seq] != values(ok.line) { mismatches.append(ok.line) }
        #expect(mismatches.isEmpty, "replies that disagree with their event: \(mismatches.prefix(5))")
        // Replaying the events from the initial stock gives the final STOCK.
        var replay = ["strawberry": 10, "banana": 10, "pineapple": 10, "kiwi": 10, "mango": 10]
        for e in events {
            for (k, v) in values(e) where k != "seq" { replay[k] = v }
        }
        for (fruit, value) in replay { #expect(final[fruit] == value, "\(fruit): STOCK says \(final[fruit] ?? -1), events say \(value)") }
        print("fuzz: \(run.strings) strings in \(run.batches) batches, \(run.reconnects) reconnects (\(run.unexpectedCloses) unexpected), \(oks.count) OK changes, final seq \(seq), \(pings.get) PING/STOCK rounds")
        await s.stop()
    }

    // MARK: - 2. A 1 MiB line

    @Test func aOneMebibyteLineIsRefusedAndClosedWithBoundedMemory() throws {
        let server = try ExecutableServer(["--in-memory"])
        let control = try server.peer()
        _ = control.nextLine()
        #expect(control.ask("PING") == "OK PONG")
        let rssBefore = server.rss
        let hwmBefore = server.peakRSS
        let senders = 4
        let results = Locked<[String]>([])
        let peers = try (0..<senders).map { _ in try server.peer() }
        for p in peers { _ = p.nextLine() }
        onThreads(senders * 2) { n in
            let p = peers[n / 2]
            if n % 2 == 0 {
                // No newline anywhere: 1 MiB of one line. The send fails once the server hangs up.
                p.write([UInt8](repeating: UInt8(ascii: "A"), count: 1 << 20))
            } else {
                let first = p.nextLine(timeout: 30)
                let closed = p.waitClosed(timeout: 30)
                results.update { $0.append("\(first)|closed=\(closed)") }
            }
        }
        let expected = "line(\"ERR LINE_TOO_LONG a line may hold at most 4096 bytes; closing\")|closed=true"
        #expect(results.get == Array(repeating: expected, count: senders), "\(results.get)")
        let rssAfter = server.rss
        let peak = server.peakRSS
        let growth = max(peak, rssAfter) - max(rssBefore, hwmBefore)
        print("1 MiB line x\(senders): RSS \(mebibytes(rssBefore)) -> \(mebibytes(rssAfter)), peak \(mebibytes(hwmBefore)) -> \(mebibytes(peak)); growth \(mebibytes(max(0, growth)))")
        #expect(growth < 16 << 20, "RSS grew by \(mebibytes(growth))")
        #expect(control.ask("PING") == "OK PONG")
        #expect(server.log().contains("line too long"))
    }

    // MARK: - 3. Slow consumers

    @Test func aSlowConsumerIsDroppedWhileADisplayKeepsEveryEventAndMemoryStaysBounded() throws {
        let run = try SlowConsumerRun(maxOutputBytes: nil, minLines: 60_000, maxLines: 400_000, chunk: 2000)
        print("slow consumer (default 1 MiB cap): \(run.summary)")
        #expect(run.problems.isEmpty, "\(run.problems.prefix(5))")
        #expect(run.slowClosed, "the slow client was never disconnected")
        #expect(run.log.contains("disconnecting slow client 127.0.0.1:\(run.slowPort)"), "log: \(run.log.suffix(2000))")
        #expect(run.displayLastSeq == run.linesSent + 1, "the display stopped at seq \(run.displayLastSeq)")
        #expect(run.peakGrowth < 30 << 20, "RSS peak grew by \(mebibytes(run.peakGrowth))")
        #expect(run.finalStock == "OK STOCK seq=\(run.linesSent + 1) banana=\(1_000_000_000 - 2 * run.linesSent)")
        if let pending = run.pendingAtDrop { #expect(pending > 1 << 20 && pending < 2 << 20) }
    }

    @Test func aSmallerOutputCapDropsTheSlowConsumerSooner() throws {
        let run = try SlowConsumerRun(maxOutputBytes: 65536, minLines: 5_000, maxLines: 200_000, chunk: 500)
        print("slow consumer (--max-output-bytes 65536): \(run.summary)")
        #expect(run.problems.isEmpty, "\(run.problems.prefix(5))")
        #expect(run.slowClosed, "the slow client was never disconnected")
        #expect(run.log.contains("(limit 65536)"))
        // Dropped with well under the default 1 MiB pending: sooner than the default would.
        if let pending = run.pendingAtDrop {
            #expect(pending > 65536 && pending < 1 << 20, "dropped with \(pending) bytes pending")
        } else {
            Issue.record("no 'disconnecting slow client' line in the log")
        }
        #expect(run.displayLastSeq == run.linesSent + 1)
        #expect(run.peakGrowth < 30 << 20, "RSS peak grew by \(mebibytes(run.peakGrowth))")
    }

    /// A display that reads everything at once must not count as slow just because one read of
    /// pipelined orders produced more events than the cap before the server tried to send any.
    @Test func aPromptDisplayIsNotDroppedByOneBurstOfEventsUnderASmallCap() throws {
        let server = try ExecutableServer(["--in-memory", "--max-output-bytes", "65536"])
        let manager = try server.peer()
        _ = manager.nextLine()
        #expect(manager.ask("SET banana 1000000000") == "OK SET seq=1 banana=1000000000")
        #expect(manager.ask("EVENTS OFF") == "OK EVENTS off")
        let display = try server.peer()
        _ = display.nextLine()
        #expect(display.ask("PING") == "OK PONG")
        let burst = 4000  // 56 KB of input, one send; ~170 KB of events
        let seen = Locked(0)
        let lastLine = Locked("")
        onThreads(2) { n in
            if n == 0 {
                manager.write(Array(String(repeating: "ORDER banana\r\n", count: burst).utf8))
            } else {
                var next = 2
                while next <= burst + 1 {
                    guard case .line(let l) = display.nextLine(timeout: 30) else {
                        lastLine.update { $0 = "<closed or timeout>" }
                        break
                    }
                    guard l.hasPrefix("EVENT STOCK") else { continue }
                    if values(l)["seq"] != next { lastLine.update { $0 = l }; break }
                    next += 1
                    seen.update { $0 = next - 2 }
                }
            }
        }
        #expect(seen.get == burst, "the display got \(seen.get) of \(burst) events, then \(lastLine.get); log: \(server.log().split(separator: "\n").filter { $0.contains("slow") }.prefix(2))")
        #expect(!server.log().contains("disconnecting slow client"))
    }

    /// The same under the default 1 MiB cap: several cashiers' pipelined bursts read in one
    /// poll batch are all broadcast before the flush pass runs, so a display that reads promptly
    /// can be dropped as "slow" without ever having been sent a byte.
    @Test func aPromptDisplaySurvivesSimultaneousBurstsFromManyCashiers() throws {
        let server = try ExecutableServer(["--in-memory"])
        let manager = try server.peer()
        _ = manager.nextLine()
        #expect(manager.ask("SET banana 1000000000") == "OK SET seq=1 banana=1000000000")
        let display = try server.peer()
        _ = display.nextLine()
        #expect(display.ask("PING") == "OK PONG")
        let cashiers = 16
        let burst = 4000
        let peers = try (0..<cashiers).map { _ in try server.peer() }
        for p in peers {
            _ = p.nextLine()
            #expect(p.ask("EVENTS OFF") == "OK EVENTS off")
        }
        let total = cashiers * burst
        let ready = Locked(0)
        let seen = Locked(0)
        let lastLine = Locked("")
        let bytes = Array(String(repeating: "ORDER banana\r\n", count: burst).utf8)
        onThreads(cashiers + 1) { n in
            if n < cashiers {
                ready.update { $0 += 1 }
                while ready.get < cashiers { usleep(100) }
                peers[n].write(bytes)  // replies are left unread: 4000 x ~45 B stays under the cap
            } else {
                var count = 0
                while count < total {
                    guard case .line(let l) = display.nextLine(timeout: 30) else {
                        lastLine.update { $0 = "<closed or timeout>" }
                        break
                    }
                    if l.hasPrefix("EVENT STOCK") { count += 1 }
                }
                seen.update { $0 = count }
            }
        }
        #expect(seen.get == total, "the display got \(seen.get) of \(total) events, then \(lastLine.get); \(server.log().split(separator: "\n").filter { $0.contains("slow") }.prefix(2))")
    }

    // MARK: - 4. 2,000 clients

    @Test func twoThousandConcurrentClientsAreAllServedAndLeaveCleanly() throws {
        let count = 2000
        let limit = raiseOwnFileLimit(to: count + 1000)
        try #require(limit >= count + 200, "RLIMIT_NOFILE \(limit) is too low for \(count) clients")
        let server = try ExecutableServer(["--in-memory"])
        let control = try server.peer()
        _ = control.nextLine()
        let threads = 4
        let perThread = count / threads
        let held = Locked<[LineClient]>([])
        let problems = Locked<[String]>([])
        onThreads(threads) { _ in
            var mine: [LineClient] = []
            do {
                for _ in 0..<perThread {
                    let c = try LineClient(port: server.port)
                    if c.greeting?.hasPrefix("EVENT HELLO juice-server") != true {
                        problems.update { $0.append("greeting: \(c.greeting ?? "nil")") }
                    }
                    mine.append(c)
                }
                for c in mine {
                    let pong = try c.command("PING")
                    if pong != "OK PONG" { problems.update { $0.append("PING: \(pong)") } }
                }
                for c in mine {
                    let stock = try c.command("STOCK")
                    if stock != "OK STOCK seq=0 strawberry=10 banana=10 pineapple=10 kiwi=10 mango=10" {
                        problems.update { $0.append("STOCK: \(stock)") }
                    }
                }
            } catch {
                problems.update { $0.append("\(error)") }
            }
            held.update { $0.append(contentsOf: mine) }
        }
        #expect(problems.get.isEmpty, "\(problems.get.prefix(5))")
        #expect(held.get.count == count)
        #expect(values(control.ask("STATS"))["clients"] == count + 1)
        held.update { $0.removeAll() }  // closes every socket
        let drained = eventually(timeout: 30) { values(control.ask("STATS"))["clients"] == 1 }
        #expect(drained, "STATS still says \(control.ask("STATS"))")
        #expect(server.isRunning)
    }

    // MARK: - 5. A flood, then a reset

    @Test func aFloodOfPipelinedOrdersEndedByAResetHurtsNobody() throws {
        let server = try ExecutableServer(["--in-memory"])
        let watcher = try server.peer()
        _ = watcher.nextLine()
        let bystander = try server.peer()
        _ = bystander.nextLine()
        #expect(bystander.ask("EVENTS OFF") == "OK EVENTS off")
        let logLinesBefore = server.logLineCount
        let flooder = try server.peer()
        _ = flooder.nextLine()
        let flooding = Locked(true)
        let problems = Locked<[String]>([])
        let sentBytes = Locked(0)
        onThreads(2) { n in
            if n == 0 {
                let chunk = Array(String(repeating: "ORDER banana\r\n", count: 10_000).utf8)
                var total = 0
                while total < 5_000_000 {
                    guard flooder.write(chunk) else { break }  // the server may drop us as slow first
                    total += chunk.count
                }
                sentBytes.update { $0 = total }
                flooder.reset()
                flooding.update { $0 = false }
            } else {
                while flooding.get {
                    let pong = bystander.ask("PING")
                    if pong != "OK PONG" { problems.update { $0.append(pong) }; break }
                    usleep(10_000)
                }
            }
        }
        #expect(problems.get.isEmpty, "\(problems.get)")
        #expect(bystander.ask("PING") == "OK PONG")
        #expect(bystander.ask("STOCK") == "OK STOCK seq=5 strawberry=10 banana=0 pineapple=10 kiwi=10 mango=10")
        // The watcher saw the five orders that went through, and nothing else.
        var seqs: [Int] = []
        while seqs.count < 5, case .line(let l) = watcher.nextLine() {
            if l.hasPrefix("EVENT STOCK") { seqs.append(values(l)["seq"] ?? -1) }
        }
        #expect(seqs == [1, 2, 3, 4, 5])
        #expect(watcher.ask("PING") == "OK PONG")
        #expect(server.isRunning)
        let newLines = server.logLineCount - logLinesBefore
        print("flood: \(sentBytes.get) bytes sent before the reset; \(newLines) new log lines")
        #expect(newLines < 20, "the flood produced \(newLines) log lines")
    }

    // MARK: - Closing lines followed by a reset (found while writing 5)

    /// A line after which the server hangs up (QUIT, an HTTP request, a too-long line, the third
    /// wrong AUTH), arriving together with the peer's RST: the reply's send fails and the
    /// connection is closed inside `handleInput`, which then suspends the already-cancelled read
    /// source; releasing a suspended source crashes libdispatch, taking the whole server down.
    @Test(arguments: ["QUIT", "HTTP GET", "Host header", "too-long line", "third wrong AUTH"])
    func aClosingLineFollowedByAResetDoesNotCrashTheServer(kind: String) throws {
        let payload: String
        switch kind {
        case "QUIT": payload = "QUIT\r\n"
        case "HTTP GET": payload = "GET / HTTP/1.1\r\n"
        case "Host header": payload = "Host: x\r\n"
        case "too-long line": payload = String(repeating: "A", count: 5000) + "\r\n"
        default: payload = "AUTH a\r\nAUTH b\r\nAUTH c\r\n"
        }
        let server = try ExecutableServer(["--in-memory"], environment: ["JUICE_MANAGER_TOKEN": "s3cret"])
        var survived = 0
        for _ in 0..<10 {
            guard server.isRunning else { break }
            let p = try server.peer()
            _ = p.nextLine()
            p.write(payload)
            p.reset()
            guard let control = try? server.peer(), case .line = control.nextLine(timeout: 5),
                  control.ask("PING", timeout: 5) == "OK PONG" else { break }
            survived += 1
        }
        let alive = !eventually(timeout: 1) { !server.isRunning }
        #expect(survived == 10 && alive,
                "\(kind) + RST: the server died after \(survived) rounds (exit \(server.waitForExit(timeout: 5).map(String.init) ?? "running")); \(server.log().split(separator: "\n").filter { $0.contains("crash") || $0.contains("Fatal") }.prefix(2))")
    }

    // MARK: - 6. Telnet and HTTP

    @Test func telnetNegotiationIsStrippedAndNothingSentIsEver0xFF() async throws {
        let s = try await RunningServer.start()
        let p = try LineClient.peer(port: s.port)
        p.keepReceived = true
        _ = p.nextLine()
        func ask(_ bytes: [UInt8]) -> String {
            p.write(bytes)
            if case .line(let l) = p.nextReply() { return l }
            return "<none>"
        }
        let iac: UInt8 = 0xFF
        #expect(ask([iac, 0xFB, 0x01] + Array("PING\r\n".utf8)) == "OK PONG")  // IAC WILL ECHO first
        #expect(ask(Array("PI".utf8) + [iac, 0xFD, 0x03] + Array("NG\r\n".utf8)) == "OK PONG")  // IAC DO inside
        #expect(ask([iac, 0xFA, 0x18, 0x01, iac, 0xF0] + Array("STOCK kiwi\r\n".utf8)) == "OK STOCK seq=0 kiwi=10")
        // A whole command inside IAC SB ... IAC SE is swallowed: the next reply is the PING's.
        #expect(ask([iac, 0xFA, 0x18] + Array("ORDER banana\r\n".utf8) + [iac, 0xF0] + Array("PING\r\n".utf8)) == "OK PONG")
        // IAC IP (Ctrl-C) drops the partial line: nothing is ordered.
        #expect(ask(Array("ORDER ban".utf8) + [iac, 0xF4] + Array("PING\r\n".utf8)) == "OK PONG")
        #expect(ask(Array("STOCK banana\r\n".utf8)) == "OK STOCK seq=0 banana=10")
        // Telnet's bare CR is CR NUL: a control character, refused, not a crash.
        #expect(ask(Array("PING\r\0STOCK\r\n".utf8)).hasPrefix("ERR BAD_REQUEST"))
        #expect(ask(Array("\r\0\r\n".utf8)).hasPrefix("ERR BAD_REQUEST"))
        // IAC IAC is a literal 0xFF: not UTF-8, refused; the reply carries no 0xFF.
        #expect(ask(Array("PING".utf8) + [iac, iac] + Array("\r\n".utf8)).hasPrefix("ERR BAD_REQUEST"))
        #expect(ask(Array("ORDER ".utf8) + [iac, iac, 0xFE] + Array("\r\n".utf8)).hasPrefix("ERR BAD_REQUEST"))
        #expect(ask(Array("PING\r\n".utf8)) == "OK PONG")
        #expect(!p.received.contains(0xFF), "the server sent a 0xFF byte")
        await s.stop()
    }

    @Test(arguments: ["GET / HTTP/1.1\r\nHost: x\r\n\r\n", "POST /x HTTP/1.0\r\nContent-Length: 0\r\n\r\n", "Host: x\r\n\r\n"])
    func anHTTPProbeGetsOneBadRequestLineThenTheConnectionCloses(request: String) async throws {
        let s = try await RunningServer.start()
        let p = try LineClient.peer(port: s.port)
        p.keepReceived = true
        _ = p.nextLine()
        p.write(request)
        #expect(p.waitClosed(timeout: 20))
        let lines = p.drainLines()
        #expect(lines.count == 1 && lines[0].hasPrefix("ERR BAD_REQUEST "), "\(lines)")
        #expect(!p.received.contains(0xFF))
        let other = try s.client()
        #expect(try other.command("PING") == "OK PONG")
        await s.stop()
    }

    // MARK: - 7. Auth

    @Test func managerTokenFromTheEnvironmentGuardsRestockAndSet() throws {
        let server = try ExecutableServer(["--in-memory"], environment: ["JUICE_MANAGER_TOKEN": "s3cret"])
        let cashier = try server.peer()
        _ = cashier.nextLine()
        let display = try server.peer()
        _ = display.nextLine()
        #expect(cashier.ask("RESTOCK kiwi 5").hasPrefix("ERR FORBIDDEN "))
        #expect(cashier.ask("SET kiwi 3").hasPrefix("ERR FORBIDDEN "))
        // Permission comes before arguments.
        #expect(cashier.ask("RESTOCK durian -1").hasPrefix("ERR FORBIDDEN "))
        #expect(cashier.ask("set").hasPrefix("ERR FORBIDDEN "))
        // Everything else is open.
        #expect(cashier.ask("ORDER banana") == "OK ORDER banana 1 seq=1 banana=8")
        #expect(cashier.ask("STOCK kiwi") == "OK STOCK seq=1 kiwi=10")
        #expect(cashier.ask("MENU").hasPrefix("OK MENU "))
        #expect(cashier.ask("STATS").hasPrefix("OK STATS clients=2"))
        if case .line(let event) = display.nextLine() { #expect(event == "EVENT STOCK seq=1 banana=8") }
        // Three wrong tokens: each refused, the third closes the connection after its reply.
        let guesser = try server.peer()
        _ = guesser.nextLine()
        let guesserPort = guesser.localPort
        #expect(guesser.ask("AUTH wrong") == "ERR AUTH_FAILED wrong token")
        #expect(guesser.ask("AUTH s3cre") == "ERR AUTH_FAILED wrong token")
        #expect(guesser.ask("AUTH s3cret!") == "ERR AUTH_FAILED wrong token; 3 failures, closing")
        #expect(guesser.waitClosed())
        // The right token, on one connection only.
        #expect(cashier.ask("AUTH s3cret") == "OK AUTH")
        #expect(cashier.ask("RESTOCK kiwi 5") == "OK RESTOCK seq=2 kiwi=15")
        #expect(cashier.ask("SET kiwi 3") == "OK SET seq=3 kiwi=3")
        #expect(display.ask("RESTOCK kiwi 1").hasPrefix("ERR FORBIDDEN "))
        let log = server.log()
        #expect(log.contains("AUTH refused for 127.0.0.1:\(guesserPort)"))
        #expect(log.contains("FORBIDDEN for 127.0.0.1:\(cashier.localPort)"))
        #expect(log.contains("FORBIDDEN for 127.0.0.1:\(display.localPort)"))
        #expect(!log.contains("s3cret"), "the log shows the token")
    }

    @Test func managerTokenFromAFile() throws {
        let dir = temporaryDirectory("juice-hard-token")
        defer { removeTemporary(dir) }
        let file = dir + "/token"
        try "s3cret\n".write(toFile: file, atomically: true, encoding: .utf8)
        let server = try ExecutableServer(["--in-memory", "--manager-token-file", file])
        let c = try server.peer()
        _ = c.nextLine()
        #expect(c.ask("RESTOCK kiwi 1").hasPrefix("ERR FORBIDDEN "))
        #expect(c.ask("AUTH s3cret\n") == "OK AUTH" || c.ask("PING") == "OK PONG")
        #expect(c.ask("RESTOCK kiwi 1") == "OK RESTOCK seq=1 kiwi=11")
        let other = try server.peer()
        _ = other.nextLine()
        #expect(other.ask("AUTH nope") == "ERR AUTH_FAILED wrong token")
        #expect(other.ask("SET kiwi 1").hasPrefix("ERR FORBIDDEN "))
    }

    @Test func withoutATokenLoopbackIsManagerAndAUTHSaysSo() throws {
        let server = try ExecutableServer(["--in-memory"])
        let c = try server.peer()
        _ = c.nextLine()
        #expect(c.ask("AUTH x") == "ERR AUTH_FAILED no manager token is configured")
        #expect(c.ask("RESTOCK kiwi 1") == "OK RESTOCK seq=1 kiwi=11")
        #expect(c.ask("AUTH y") == "ERR AUTH_FAILED no manager token is configured")
        #expect(c.ask("AUTH z") == "ERR AUTH_FAILED no manager token is configured")
        #expect(c.ask("PING") == "OK PONG")  // not counted as failures: still connected
    }

    @Test func publicAddressNeedsATokenAndTheTokenNeverGoesOnTheCommandLine() throws {
        let (status, output) = try ExecutableServer.run(["--in-memory", "--host", "0.0.0.0", "--port", "0"])
        #expect(status != 0)
        #expect(output.contains("JUICE_MANAGER_TOKEN"), "\(output)")
        let (status2, output2) = try ExecutableServer.run(["--in-memory", "--manager-token", "s3cret", "--port", "0"])
        #expect(status2 != 0)
        #expect(output2.lowercased().contains("usage"), "\(output2)")
        let (status3, output3) = try ExecutableServer.run(["--in-memory", "--manager-token=s3cret", "--port", "0"])
        #expect(status3 != 0 && output3.lowercased().contains("usage"))
        let server = try ExecutableServer(["--in-memory", "--host", "0.0.0.0"], environment: ["JUICE_MANAGER_TOKEN": "s3cret"])
        #expect(server.log().contains("listening on 0.0.0.0:\(server.port)"))
        let c = try server.peer()
        _ = c.nextLine()
        #expect(c.ask("PING") == "OK PONG")
        #expect(c.ask("SET kiwi 1").hasPrefix("ERR FORBIDDEN "))
        #expect(c.ask("AUTH s3cret") == "OK AUTH")
        #expect(c.ask("SET kiwi 1") == "OK SET seq=1 kiwi=1")
    }

    // MARK: - 8. Signals

    @Test func sigtermTellsEveryClientFlushesRepliesExitsZeroAndKeepsState() throws {
        let dir = temporaryDirectory("juice-hard-term")
        defer { removeTemporary(dir) }
        let server = try ExecutableServer(["--data", dir, "--initial-stock", "1000000"])
        let idle = try (0..<4).map { _ in try server.peer() }
        for c in idle { _ = c.nextLine() }
        let cashier = try server.peer()
        _ = cashier.nextLine()
        #expect(cashier.ask("ORDER banana") == "OK ORDER banana 1 seq=1 banana=999998")
        let outcome = Locked<(status: Int32?, seconds: Double)>((nil, 0))
        let lines = Locked<[Int: [String]]>([:])
        let cashierHasData = Locked(false)
        let pipelined = 3000
        onThreads(idle.count + 2) { n in
            if n == idle.count + 1 {
                // Pipeline orders, wait for the first of their replies (so the server is into
                // them), then SIGTERM.
                cashier.write(Array(String(repeating: "ORDER banana\r\n", count: pipelined).utf8))
                _ = eventually(timeout: 20) { cashierHasData.get }
                let start = Date()
                server.signal(SIGTERM)
                let status = server.waitForExit(timeout: 30)
                outcome.update { $0 = (status, Date().timeIntervalSince(start)) }
            } else {
                let p = n < idle.count ? idle[n] : cashier
                if n == idle.count {
                    _ = p.fill(waitMilliseconds: 10_000)
                    cashierHasData.update { $0 = true }
                }
                _ = p.waitClosed(timeout: 30)
                let got = p.drainLines()
                lines.update { $0[n] = got }
            }
        }
        let result = outcome.get
        print("SIGTERM with \(idle.count + 1) clients: exit \(result.status.map(String.init) ?? "none") after \(String(format: "%.3f", result.seconds)) s")
        #expect(result.status == 0)
        #expect(result.seconds < 10)
        let all = lines.get
        for n in 0...idle.count {
            #expect(all[n]?.last == "EVENT BYE shutting down", "client \(n) ended with \(all[n]?.suffix(2) ?? [])")
        }
        // The cashier got a reply to every order the server took, all before the BYE.
        let replies = (all[idle.count] ?? []).filter { $0.hasPrefix("OK ORDER") }
        let seqs = replies.map { values($0)["seq"] ?? -1 }
        #expect(seqs == Array(stride(from: 2, through: replies.count + 1, by: 1)))
        print("SIGTERM: \(replies.count) of \(pipelined) pipelined orders were taken and answered")
        // The state is kept: a restart on the same data has exactly the answered changes.
        let again = try ExecutableServer(["--data", dir])
        let c = try again.peer()
        _ = c.nextLine()
        let k = replies.count + 1
        #expect(c.ask("STOCK banana") == "OK STOCK seq=\(k) banana=\(1_000_000 - 2 * k)")
        again.signal(SIGTERM)
        #expect(again.waitForExit() == 0)
    }

    @Test func sigtermWithAClientThatNeverReadsStillExitsInTime() throws {
        let server = try ExecutableServer(["--in-memory", "--max-output-bytes", "67108864"])
        let stuck = try server.peer(receiveBuffer: 4096)
        _ = stuck.nextLine()
        stuck.write(Array(String(repeating: "STOCK\r\n", count: 150_000).utf8))  // ~11 MB of replies it never reads
        let control = try server.peer()
        _ = control.nextLine()
        #expect(control.ask("PING") == "OK PONG")
        waitForIdleCPU(server)
        let start = Date()
        server.signal(SIGTERM)
        let status = server.waitForExit(timeout: 30)
        let seconds = Date().timeIntervalSince(start)
        print("SIGTERM with a client that never reads: exit \(status.map(String.init) ?? "none") after \(String(format: "%.3f", seconds)) s")
        #expect(status == 0)
        #expect(seconds < 10)
    }

    @Test func aSecondSignalExitsAtOnce() throws {
        let server = try ExecutableServer(["--in-memory", "--max-output-bytes", "67108864"])
        let stuck = try server.peer(receiveBuffer: 4096)
        _ = stuck.nextLine()
        stuck.write(Array(String(repeating: "STOCK\r\n", count: 150_000).utf8))
        waitForIdleCPU(server)
        server.signal(SIGINT)
        usleep(100_000)
        let start = Date()
        server.signal(SIGINT)
        let status = server.waitForExit(timeout: 30)
        let seconds = Date().timeIntervalSince(start)
        print("second SIGINT: exit \(status.map(String.init) ?? "none") after \(String(format: "%.3f", seconds)) s")
        #expect(status != nil)
        #expect(seconds < 10)
        if status == 1 { #expect(server.log().contains("second signal")) }
    }

    // MARK: - 9. Idle timeout

    @Test func idleTimeoutClosesASilentClientButNotAnActiveOne() throws {
        let server = try ExecutableServer(["--in-memory", "--idle-timeout", "1"])
        let silent = try server.peer()
        _ = silent.nextLine()
        let active = try server.peer()
        _ = active.nextLine()
        let silentClosed = Locked<Date?>(nil)
        let problems = Locked<[String]>([])
        let start = Date()
        onThreads(2) { n in
            if n == 0 {
                if silent.waitClosed(timeout: 30) { silentClosed.update { $0 = Date() } }
            } else {
                // PING every 300 ms until 1.5 s past the silent client's close (or 30 s).
                while Date().timeIntervalSince(start) < 30 {
                    if let closed = silentClosed.get, Date().timeIntervalSince(closed) > 1.5 { break }
                    let pong = active.ask("PING")
                    if pong != "OK PONG" { problems.update { $0.append(pong) }; break }
                    usleep(300_000)
                }
            }
        }
        let closedAfter = silentClosed.get.map { $0.timeIntervalSince(start) }
        print("idle timeout 1 s: the silent client was closed after \(closedAfter.map { String(format: "%.2f", $0) } ?? "never") s")
        #expect(closedAfter != nil)
        #expect(problems.get.isEmpty, "the active client got \(problems.get)")
        #expect(active.ask("PING") == "OK PONG")
        #expect(server.log().contains("idle for more than 1 s"))
    }

    // MARK: - 10. Max clients

    @Test func theSixthClientIsBusyUntilOneLeaves() async throws {
        let s = try await RunningServer.start { $0.maxClients = 5 }
        var clients = try (0..<5).map { _ in try s.client() }
        for c in clients { #expect(try c.command("PING") == "OK PONG") }
        let sixth = try LineClient.peer(port: s.port)
        #expect(sixth.nextLine() == .line("ERR BUSY max clients reached"))
        #expect(sixth.waitClosed())
        clients.removeFirst()  // one leaves
        var accepted: LineClient?
        _ = eventually(timeout: 20) {
            guard let c = try? s.client(readGreeting: false), let first = try? c.readLine() else { return false }
            if first.hasPrefix("EVENT HELLO") { accepted = c; return true }
            return false
        }
        #expect(accepted != nil)
        if let accepted { #expect(try accepted.command("PING") == "OK PONG") }
        for c in clients { #expect(try c.command("PING") == "OK PONG") }
        await s.stop()
    }

    // MARK: - 11. Out of file descriptors

    /// Starts the server under `ulimit -n 200` (it lowers --max-clients 1000 to fit), then lowers
    /// its soft limit further so that descriptors run out before max-clients does, and connects
    /// more clients than it has descriptors for.
    private func serverOutOfDescriptors() throws -> (ExecutableServer, served: [LineClient], pending: [LineClient]) {
        let server = try ExecutableServer(["--in-memory", "--max-clients", "1000"], shellPrefix: "ulimit -n 200")
        #expect(server.log().contains("lowering max clients from 1000 to"), "\(server.log())")
        let open = ProcStat.openFiles(server.pid)
        try #require(setFileLimit(pid: server.pid, soft: open + 20, hard: 200), "prlimit failed: errno \(errno)")
        let peers = try (0..<50).map { _ in try server.peer() }
        #expect(eventually(timeout: 20) { server.log().contains("Too many open files") })
        // Who got a greeting?
        _ = eventually(timeout: 3) {
            for p in peers { p.fill(waitMilliseconds: 0) }
            return false
        }
        var served: [LineClient] = []
        var pending: [LineClient] = []
        for p in peers {
            if p.bufferedBytes > 0, case .line(let l) = p.nextLine(timeout: 0.1), l.hasPrefix("EVENT HELLO") {
                served.append(p)
            } else {
                pending.append(p)
            }
        }
        return (server, served, pending)
    }

    @Test func outOfDescriptorsTheServerNeitherSpinsNorStopsAccepting() throws {
        let (server, served, pending) = try serverOutOfDescriptors()
        #expect(served.count >= 5 && !pending.isEmpty, "served \(served.count), pending \(pending.count)")
        let cpuBefore = server.cpuSeconds
        sleep(3)
        let cpu = server.cpuSeconds - cpuBefore
        print("EMFILE: \(served.count) served, \(pending.count) pending; \(String(format: "%.2f", cpu)) s CPU over 3 s; \(server.log().components(separatedBy: "Too many open files").count - 1) pause lines")
        #expect(cpu < 1.0, "the server used \(cpu) s of CPU in 3 s while out of descriptors")
        for p in served { #expect(p.ask("PING") == "OK PONG") }
        // Some leave: waiting clients must now be accepted.
        for p in served.prefix(5) { p.close() }
        let greeted = eventually(timeout: 20) {
            for p in pending { p.fill(waitMilliseconds: 0) }
            return pending.filter { $0.bufferedBytes > 0 }.count >= 5
        }
        #expect(greeted, "after 5 clients left, \(pending.filter { $0.bufferedBytes > 0 }.count) waiting clients were accepted; log tail: \(server.log().suffix(400))")
        #expect(server.isRunning)
    }

    @Test func sigtermWhileOutOfDescriptorsStillShutsDownCleanly() throws {
        let (server, served, _) = try serverOutOfDescriptors()
        #expect(!served.isEmpty)
        server.signal(SIGTERM)
        let status = server.waitForExit(timeout: 30)
        #expect(status == 0, "exit status \(status.map(String.init) ?? "none") (negative: killed by that signal)")
        for p in served.prefix(3) {
            _ = p.waitClosed(timeout: 5)
            #expect(p.drainLines().last == "EVENT BYE shutting down")
        }
    }
}

// MARK: - The slow-consumer run

/// One cashier pipelines `ORDER banana` in chunks (with flow control so the well-behaved display
/// is never far behind), a display checks every event's seq, and a client with a tiny receive
/// buffer never reads after its greeting.
struct SlowConsumerRun {
    var problems: [String] = []
    var slowClosed = false
    var slowPort = 0
    var linesSent = 0
    var linesAtDrop: Int?
    var displayLastSeq = 0
    var rssBefore = 0
    var rssAfter = 0
    var peakGrowth = 0
    var pendingAtDrop: Int?
    var finalStock = ""
    var log = ""

    init(maxOutputBytes: Int?, minLines: Int, maxLines: Int, chunk: Int) throws {
        let server = try ExecutableServer(["--in-memory"] + (maxOutputBytes.map { ["--max-output-bytes", "\($0)"] } ?? []))
        let manager = try server.peer()
        _ = manager.nextLine()
        guard manager.ask("SET banana 1000000000") == "OK SET seq=1 banana=1000000000",
              manager.ask("EVENTS OFF") == "OK EVENTS off" else { throw TestError("setup failed") }
        let slow = try server.peer(receiveBuffer: 4096)
        _ = slow.nextLine()
        slowPort = slow.localPort
        let display = try server.peer()
        _ = display.nextLine()
        let cashier = try server.peer()
        _ = cashier.nextLine()
        guard cashier.ask("EVENTS OFF") == "OK EVENTS off", display.ask("PING") == "OK PONG" else {
            throw TestError("setup failed")
        }
        rssBefore = server.rss
        let baseline = max(rssBefore, server.peakRSS)
        let replies = Locked(0)
        let displaySeq = Locked(1)
        let sent = Locked(0)
        let sendingDone = Locked(false)
        let dropAt = Locked<Int?>(nil)
        let problems = Locked<[String]>([])
        let keepUp = maxOutputBytes == nil ? 4 * chunk : 0
        @Sendable func waitUntil(_ condition: () -> Bool) -> Bool {
            let deadline = Date().addingTimeInterval(60)
            while !condition() {
                if Date() > deadline { return false }
                usleep(500)
            }
            return true
        }
        onThreads(3) { n in
            switch n {
            case 0:
                let bytes = Array(String(repeating: "ORDER banana\r\n", count: chunk).utf8)
                var total = 0
                while total < maxLines {
                    if total >= minLines, let at = dropAt.get, total >= at + 20 * chunk { break }
                    // Flow control: the cashier and the display stay close behind.
                    let now = total
                    guard waitUntil({ replies.get >= now - (keepUp > 0 ? chunk : 0) && displaySeq.get >= now + 1 - keepUp }) else {
                        problems.update { $0.append("stalled at \(now) lines: \(replies.get) replies, display at seq \(displaySeq.get)") }
                        break
                    }
                    if dropAt.get == nil, server.log().contains("disconnecting slow client") { dropAt.update { $0 = total } }
                    guard cashier.write(bytes) else {
                        problems.update { $0.append("the cashier's send failed at \(total) lines") }
                        break
                    }
                    total += chunk
                    sent.update { $0 = total }
                }
                sendingDone.update { $0 = true }
            case 1:
                var expected = 2
                while !(sendingDone.get && expected > sent.get + 1) {
                    switch cashier.nextLine(timeout: 0.5) {
                    case .line(let l):
                        guard !l.hasPrefix("EVENT") else { continue }
                        let want = "OK ORDER banana 1 seq=\(expected) banana=\(1_000_000_000 - 2 * (expected - 1))"
                        if seqField(l) != expected || l.utf8.count != want.utf8.count || !l.hasSuffix(String(1_000_000_000 - 2 * (expected - 1))) {
                            problems.update { $0.append("cashier: got '\(l)', wanted '\(want)'") }
                            return
                        }
                        expected += 1
                        replies.update { $0 += 1 }
                    case .closed:
                        problems.update { $0.append("the cashier was disconnected after \(expected - 2) replies") }
                        return
                    case .timeout:
                        if sendingDone.get && problems.read({ !$0.isEmpty }) { return }
                    }
                }
            default:
                var next = 2
                while !(sendingDone.get && next > sent.get + 1) {
                    switch display.nextLine(timeout: 0.5) {
                    case .line(let l):
                        guard l.hasPrefix("EVENT STOCK") else { continue }
                        let seq = seqField(l) ?? -1
                        if seq != next {
                            problems.update { $0.append("display: got seq \(seq), wanted \(next)") }
                            return
                        }
                        displaySeq.update { $0 = next }
                        next += 1
                    case .closed:
                        problems.update { $0.append("the display was disconnected at seq \(next - 1)") }
                        return
                    case .timeout:
                        if sendingDone.get && problems.read({ !$0.isEmpty }) { return }
                    }
                }
            }
        }
        linesSent = sent.get
        linesAtDrop = dropAt.get
        displayLastSeq = displaySeq.get
        self.problems = problems.get
        slowClosed = slow.waitClosed(timeout: 30)
        rssAfter = server.rss
        peakGrowth = max(server.peakRSS, rssAfter) - baseline
        finalStock = manager.ask("STOCK banana")
        log = server.log()
        if let line = log.split(separator: "\n").first(where: { $0.contains("disconnecting slow client") }),
           let range = line.range(of: ": ", options: .backwards) {
            pendingAtDrop = Int(line[range.upperBound...].prefix { $0.isNumber })
        }
    }

    var summary: String {
        "\(linesSent) orders sent, slow client dropped \(slowClosed ? "" : "NOT ")with \(pendingAtDrop.map(String.init) ?? "?") bytes pending (seen after ~\(linesAtDrop.map(String.init) ?? "?") orders); display reached seq \(displayLastSeq); RSS \(mebibytes(rssBefore)) -> \(mebibytes(rssAfter)), peak growth \(mebibytes(peakGrowth))"
    }
}

/// The number after " seq=" in a reply or event line (quicker than `values` for long runs).
func seqField(_ line: String) -> Int? {
    let bytes = Array(line.utf8)
    let key: [UInt8] = Array(" seq=".utf8)
    guard bytes.count > key.count else { return nil }
    for start in 0...(bytes.count - key.count) where bytes[start] == key[0] && Array(bytes[start..<start + key.count]) == key {
        var value = 0
        var i = start + key.count
        guard i < bytes.count, bytes[i] >= 48 && bytes[i] <= 57 else { return nil }
        while i < bytes.count, bytes[i] >= 48 && bytes[i] <= 57 {
            value = value * 10 + Int(bytes[i] - 48)
            i += 1
        }
        return value
    }
    return nil
}

// MARK: - Fuzz generation

enum Fuzz {
    static let verbs = ["ORDER", "RESTOCK", "SET", "STOCK", "EVENTS", "SINCE", "AUTH", "PING", "HELP", "MENU", "STATS",
                        "order", "Restock", "set", "stock", "events", "since", "auth", "ping", "menu", "Stats", "ORDERS", "주문"]
    static let fruits = ["strawberry", "banana", "pineapple", "kiwi", "mango", "딸기", "바나나", "파인애플", "키위", "망고",
                         "KIWI", "Mango", "durian", "두리안", "kiwi ", "바나나나"]
    static let juices = ["strawberry", "banana", "kiwi", "pineapple", "strawberry-banana", "mango", "mango-kiwi", "딸기쥬스",
                         "바나나쥬스", "키위쥬스", "파인애플쥬스", "딸바쥬스", "망고쥬스", "망키쥬스", "MANGO-KIWI", "smoothie", "망키"]
    static let numbers = ["0", "1", "2", "3", "5", "7", "10", "16", "100", "1000", "1001", "-1", "+1", "01", "1e3", "0x10",
                          "999999999", "1000000000", "1000000001", "99999999999999999999999", "١", "３", "1.5", "NaN"]
    static let keys = ["key=a", "key=b", "key=k1", "key=order-7", "key=x:y.z", "key=", "key=한글", "KEY=a",
                       "key=" + String(repeating: "k", count: 65), "key=a b"]
    static let words = ["ON", "off", "on", "OFF", "ALIASES", "aliases", "s3cret", "token", "", "\t", "=", "seq=1", "OK", "ERR", "EVENT"]

    static func pick<T>(_ list: [T], _ rng: inout SeededRNG) -> T { list[Int.random(in: 0..<list.count, using: &rng)] }

    static func space(_ rng: inout SeededRNG) -> String {
        switch Int.random(in: 0..<10, using: &rng) {
        case 0: return "  "
        case 1: return "\t"
        default: return " "
        }
    }

    static func garbageText(_ rng: inout SeededRNG) -> String {
        let pool = Array("abcXYZ019 =:+,-_.~!@#$%^&*()[]{}<>?/\\|'\"`가나다한글쥬스🍓🥝é".unicodeScalars)
        let n = Int.random(in: 1...24, using: &rng)
        var s = ""
        for _ in 0..<n { s.unicodeScalars.append(pick(pool, &rng)) }
        return s
    }

    /// One line (without its line end) of plausible-but-random protocol text.
    static func tokenLine(_ rng: inout SeededRNG) -> String {
        let sp = space(&rng)
        switch Int.random(in: 0..<100, using: &rng) {
        case 0..<26:
            var parts = [pick(["ORDER", "order", "Order"], &rng), pick(juices, &rng)]
            if Bool.random(using: &rng) { parts.append(pick(Array(numbers.prefix(12)) + numbers, &rng)) }
            if Int.random(in: 0..<3, using: &rng) == 0 { parts.append(pick(keys, &rng)) }
            if Int.random(in: 0..<15, using: &rng) == 0 { parts.append(pick(numbers, &rng)) }
            return parts.joined(separator: sp)
        case 26..<36:
            return [pick(["RESTOCK", "restock"], &rng), pick(fruits, &rng), pick(numbers, &rng)].joined(separator: sp)
        case 36..<44:
            return [pick(["SET", "set"], &rng), pick(fruits, &rng), pick(Array(numbers.prefix(9)) + numbers, &rng)].joined(separator: sp)
        case 44..<52:
            return Bool.random(using: &rng) ? "STOCK" : "STOCK" + sp + pick(fruits, &rng)
        case 52..<56:
            return "EVENTS" + sp + pick(words, &rng)
        case 56..<61:
            return "SINCE" + sp + pick(numbers + ["0", "3", "50"], &rng)
        case 61..<64:
            return "AUTH" + sp + pick(words + numbers, &rng)
        case 64..<71:
            return pick(["PING", "HELP", "MENU", "MENU ALIASES", "STATS", "ping", "MENU x", "PING 1", "QUIT now"], &rng)
        case 71..<86:
            let n = Int.random(in: 1...7, using: &rng)
            return (0..<n).map { _ in pick(verbs + fruits + juices + numbers + keys + words, &rng) }.joined(separator: sp)
        case 86..<95:
            return garbageText(&rng)
        case 95..<98:
            // Control characters and invalid UTF-8.
            let bad: [String] = ["PING\u{1B}[2J", "ORDER\u{0}banana", "STOCK\u{7F}", "\u{85}PING", "ORDER banana\u{8}", "\u{7}"]
            return pick(bad, &rng)
        default:
            return ""
        }
    }

    /// A line after which the server hangs up.
    static func closerLine(_ rng: inout SeededRNG) -> String {
        pick(["QUIT", "quit", "GET / HTTP/1.1", "POST /order HTTP/1.0", "Host: juice", "get /x http/1.1",
              String(repeating: "ORDER banana ", count: 400)], &rng)
    }

    /// Whether the server closes the connection after `line` (mirrors the parser's rules).
    static func closes(_ line: String) -> Bool {
        if line.utf8.count > Limits.maxLineBytes { return true }
        let tokens = line.split(whereSeparator: { $0 == " " || $0 == "\t" }).map { $0.lowercased() }
        guard let first = tokens.first else { return false }
        if first == "host:" || (first == "quit" && tokens.count == 1) { return true }
        let methods: Set = ["get", "post", "put", "head", "delete", "options", "connect", "patch", "trace"]
        return tokens.count >= 2 && methods.contains(first) && tokens.last!.hasPrefix("http/")
    }

    /// A chunk of raw bytes: random bytes, valid lines with bytes flipped or telnet commands
    /// spliced in, and plain valid lines. At most ~3000 bytes, so no line can pass the limit.
    static func rawBatch(_ rng: inout SeededRNG) -> (bytes: [UInt8], strings: Int) {
        var out: [UInt8] = []
        var strings = 0
        let telnet: [[UInt8]] = [[0xFF, 0xFB, 0x01], [0xFF, 0xFD, 0x03], [0xFF, 0xFA, 0x18, 0x00], [0xFF, 0xF0], [0xFF, 0xF4],
                                 [0xFF, 0xFF], [0xFF, 0xF1], [0xFF], [0xFF, 0xFA], [0x0D, 0x00], [0x00], [0xC3], [0xED, 0xA0, 0x80]]
        while out.count < 2500 {
            strings += 1
            switch Int.random(in: 0..<10, using: &rng) {
            case 0..<3:
                let n = Int.random(in: 1...120, using: &rng)
                for _ in 0..<n { out.append(UInt8.random(in: 0...255, using: &rng)) }
            case 3..<7:
                var line = Array(tokenLine(&rng).utf8)
                for _ in 0..<Int.random(in: 1...3, using: &rng) {
                    let at = line.isEmpty ? 0 : Int.random(in: 0...line.count, using: &rng)
                    switch Int.random(in: 0..<4, using: &rng) {
                    case 0 where !line.isEmpty && at < line.count: line[at] = UInt8.random(in: 0...255, using: &rng)
                    case 1: line.insert(contentsOf: pick(telnet, &rng), at: at)
                    case 2 where !line.isEmpty && at < line.count: line.remove(at: at)
                    default: line.insert(UInt8.random(in: 0...255, using: &rng), at: at)
                    }
                }
                out += line + (Bool.random(using: &rng) ? [13, 10] : [10])
            default:
                let line = tokenLine(&rng)
                if !closes(line) { out += Array((line + "\r\n").utf8) }
            }
        }
        return (out, strings)
    }

    /// Runs one fuzz connection (reconnecting whenever the server hangs up) and records every
    /// OK change reply it received.
    static func run(port: Int, seed: UInt64, raw: Bool, batches: Int, okReplies: Locked<[(seq: Int, line: String)]>,
                    problems: Locked<[String]>, stats: Locked<(batches: Int, strings: Int, reconnects: Int, unexpectedCloses: Int)>) {
        var rng = SeededRNG(seed: seed)
        func connect() -> LineClient? {
            guard let p = try? LineClient.peer(port: port), case .line(let hello) = p.nextLine(), hello.hasPrefix("EVENT HELLO") else {
                problems.update { $0.append("seed \(seed): could not connect") }
                return nil
            }
            return p
        }
        func record(_ line: String) {
            let change = line.hasPrefix("OK ORDER ") || line.hasPrefix("OK RESTOCK ") || line.hasPrefix("OK SET ")
            if change && !line.hasSuffix(" dup"), let seq = values(line)["seq"] {
                okReplies.update { $0.append((seq, line)) }
            }
        }
        guard var peer = connect() else { return }
        for batch in 0..<batches {
            var bytes: [UInt8] = []
            var strings = 0
            var closing = false
            if raw {
                (bytes, strings) = rawBatch(&rng)
                // Leave any telnet state and end the partial line, whatever state the bytes left.
                bytes += [0xFF, 0xF0, 0xFF, 0xF0, 13, 10]
            } else {
                for _ in 0..<Int.random(in: 20...60, using: &rng) {
                    var line = tokenLine(&rng)
                    if Int.random(in: 0..<150, using: &rng) == 0 { line = closerLine(&rng) }
                    bytes += Array((line + (Bool.random(using: &rng) ? "\r\n" : "\n")).utf8)
                    strings += 1
                    if closes(line) {
                        closing = true
                        break
                    }
                }
            }
            let sentinel = "SYNC-\(seed)-\(batch)"
            if !closing { bytes += Array("\(sentinel)\r\n".utf8) }
            stats.update { $0.batches += 1; $0.strings += strings }
            peer.write(bytes)
            var reconnect = false
            reading: while true {
                switch peer.nextLine(timeout: 30) {
                case .line(let l):
                    record(l)
                    if !closing && l.contains("'\(sentinel)'") { break reading }
                case .closed:
                    if !closing {
                        stats.update { $0.unexpectedCloses += 1 }
                    }
                    reconnect = true
                    break reading
                case .timeout:
                    problems.update { $0.append("seed \(seed) batch \(batch): no reply to the sentinel within 30 s") }
                    reconnect = true
                    break reading
                }
            }
            if closing && !reconnect {
                problems.update { $0.append("seed \(seed) batch \(batch): still open after a closing line") }
            }
            if reconnect {
                stats.update { $0.reconnects += 1 }
                peer.close()
                guard let next = connect() else { return }
                peer = next
            }
        }
        // Leave politely and read what is left (replies to the last batch came before the sentinel).
        peer.write("QUIT\r\n")
        while case .line(let l) = peer.nextLine(timeout: 20) { record(l) }
    }
}

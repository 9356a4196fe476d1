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

/// `GET /events` as a browser's EventSource reads it: the full state first, then every change
/// as the line protocol's `EVENT STOCK` has it, resumable with `Last-Event-ID` with no gap and
/// no duplicate, kept alive by comments, and never ahead of the journal.
@Suite(.onOwnThreads) struct EventStreamTests {
    static let fruits = ["strawberry", "banana", "pineapple", "kiwi", "mango"]

    /// The data of a full-state message: every fruit, in menu order.
    static func fullState(seq: UInt64, _ stock: [Int]) -> String {
        "{\"seq\":\(seq),\"stock\":{" + zip(fruits, stock).map { "\"\($0)\":\($1)" }.joined(separator: ",") + "}}"
    }

    /// Reads the next data message and checks its id, event name and data exactly. False
    /// (and an issue recorded) if it is not that, so a caller can stop at the first miss.
    @discardableResult
    static func expectMessage(_ stream: EventStreamClient, id: UInt64, data: String,
                              sourceLocation: SourceLocation = #_sourceLocation) -> Bool {
        let read = stream.nextEvent()
        // Ids are the bare seq (the store a resume is for travels in the URL: StoreIdentityTests).
        guard case .got(let message) = read, message.id == String(id), message.event == "stock", message.data == data else {
            Issue.record("expected id \(id) \(data), got \(read)", sourceLocation: sourceLocation)
            return false
        }
        return true
    }

    /// Reads messages until seq `last`, checking that they run on from `next` one by one.
    @discardableResult
    static func expectRun(_ stream: EventStreamClient, from next: UInt64, through last: UInt64,
                          sourceLocation: SourceLocation = #_sourceLocation) -> Bool {
        for expected in next...last {
            let read = stream.nextEvent()
            guard case .got(let message) = read, message.seq == expected else {
                Issue.record("expected id \(expected), got \(read)", sourceLocation: sourceLocation)
                return false
            }
        }
        return true
    }

    @Test func theFullStateComesFirstThenEachChangeInOrder() throws {
        let server = try ExecutableServer(["--in-memory"])
        let cashier = try server.client()
        #expect(try cashier.command("ORDER banana").hasPrefix("OK ORDER banana 1 seq=1 "))
        #expect(try cashier.command("SET strawberry 40").hasPrefix("OK SET seq=2 "))
        #expect(try cashier.command("RESTOCK mango 3").hasPrefix("OK RESTOCK seq=3 "))
        let stream = try EventStreamClient(port: server.httpPort)
        #expect(stream.head.first == "HTTP/1.1 200 OK")
        #expect(stream.header("Content-Type") == "text/event-stream; charset=utf-8")
        #expect(stream.header("Cache-Control") == "no-store")
        #expect(stream.header("Content-Length") == nil, "a stream has no length")
        // Not seq 0: the state as it is now, with its seq as the id.
        Self.expectMessage(stream, id: 3, data: Self.fullState(seq: 3, [40, 8, 10, 10, 13]))
        #expect(try cashier.command("ORDER mango-kiwi 2") == "OK ORDER mango-kiwi 2 seq=4 mango=9 kiwi=8 amount=11000")
        #expect(try cashier.command("RESTOCK kiwi 5") == "OK RESTOCK seq=5 kiwi=13")
        #expect(try cashier.command("ORDER strawberry-banana") == "OK ORDER strawberry-banana 1 seq=6 strawberry=30 banana=7 amount=5500")
        #expect(try cashier.command("ORDER strawberry 9").hasPrefix("ERR OUT_OF_STOCK"))
        #expect(try cashier.command("SET pineapple 0") == "OK SET seq=7 pineapple=0")
        // Only the fruits each change touched, exactly like EVENT STOCK; a refusal is no change.
        Self.expectMessage(stream, id: 4, data: #"{"seq":4,"stock":{"mango":9,"kiwi":8}}"#)
        Self.expectMessage(stream, id: 5, data: #"{"seq":5,"stock":{"kiwi":13}}"#)
        Self.expectMessage(stream, id: 6, data: #"{"seq":6,"stock":{"strawberry":30,"banana":7}}"#)
        Self.expectMessage(stream, id: 7, data: #"{"seq":7,"stock":{"pineapple":0}}"#)
        #expect(stream.nextEvent(timeout: 0.2) == .timeout, "nothing more than the changes made")
    }

    /// Whatever a browser sends after its request is ignored: the stream goes on.
    @Test func bytesSentOnAnOpenStreamAreIgnored() throws {
        let server = try ExecutableServer(["--in-memory"])
        let stream = try EventStreamClient(port: server.httpPort)
        Self.expectMessage(stream, id: 0, data: Self.fullState(seq: 0, [10, 10, 10, 10, 10]))
        #expect(stream.connection.write("GET /state HTTP/1.1\r\n\r\nORDER banana\r\n" + String(repeating: "x", count: 100_000)))
        let cashier = try server.client()
        #expect(try cashier.command("SET kiwi 1") == "OK SET seq=1 kiwi=1")
        Self.expectMessage(stream, id: 1, data: #"{"seq":1,"stock":{"kiwi":1}}"#)
        #expect(try cashier.command("STOCK banana") == "OK STOCK seq=1 banana=10")
    }

    /// A browser that reconnects with `Last-Event-ID: 25` gets 26...30 and then live changes.
    @Test func lastEventIDResumesWithTheChangesAfterIt() throws {
        let server = try ExecutableServer(["--in-memory"])
        let cashier = try server.client()
        #expect(try cashier.command("EVENTS OFF") == "OK EVENTS off")
        for i in 1...30 { #expect(try cashier.command("RESTOCK banana 1") == "OK RESTOCK seq=\(i) banana=\(10 + i)") }
        let stream = try EventStreamClient(port: server.httpPort, lastEventID: "25")
        #expect(stream.status == 200)
        for seq in 26...30 {
            guard Self.expectMessage(stream, id: UInt64(seq), data: "{\"seq\":\(seq),\"stock\":{\"banana\":\(10 + seq)}}") else { return }
        }
        #expect(try cashier.command("SET banana 3") == "OK SET seq=31 banana=3")
        Self.expectMessage(stream, id: 31, data: #"{"seq":31,"stock":{"banana":3}}"#)
        // Up to date already: nothing until the next change.
        let current = try EventStreamClient(port: server.httpPort, lastEventID: "31")
        #expect(try cashier.command("SET banana 4") == "OK SET seq=32 banana=4")
        Self.expectMessage(current, id: 32, data: #"{"seq":32,"stock":{"banana":4}}"#)
    }

    /// A server with 100 fruits and a juice of all of them, after `orders` orders of it: each
    /// event lists 100 fruits (~1.7 KB), so a resume from 0 is some 17 MB, far more than the
    /// kernel's socket buffers hold: the catch-up is still being streamed, paced by the
    /// client's small receive buffer, while the test makes more changes.
    static func wideServer(orders: Int, _ arguments: [String]) throws -> ExecutableServer {
        let directory = temporaryDirectory("juice-wide-menu")
        defer { removeTemporary(directory) }
        let fruits = (0..<100).map { String(format: "f%02d", $0) }
        let menu = "{\"fruits\":[" + fruits.map { "{\"name\":\"\($0)\",\"initial_stock\":1000000000}" }.joined(separator: ",")
            + "],\"juices\":[{\"name\":\"all\",\"recipe\":[" + fruits.map { "{\"fruit\":\"\($0)\",\"amount\":1}" }.joined(separator: ",") + "]}]}"
        try menu.write(toFile: directory + "/menu.json", atomically: true, encoding: .utf8)
        let server = try ExecutableServer(arguments + ["--menu", directory + "/menu.json"])
        let cashier = try server.client()
        #expect(try cashier.command("EVENTS OFF") == "OK EVENTS off")
        #expect(cashier.write(String(repeating: "ORDER all\n", count: orders)))
        for i in 1...orders {
            guard case .got(let reply) = cashier.nextLine(), reply.hasPrefix("OK ORDER all 1 seq=\(i) ") else {
                Issue.record("setting up: order \(i) not served")
                break
            }
        }
        return server
    }

    /// Changes made while a resume is being streamed follow it, each exactly once, in memory
    /// and with the journal (where events wait for fsync).
    @Test(arguments: [false, true])
    func changesDuringACatchUpFollowItWithoutGapOrDuplicate(durable: Bool) throws {
        let directory = temporaryDirectory("juice-stream-catchup")
        defer { removeTemporary(directory) }
        let history = UInt64(BoundedWorkTests.history)
        let server = try Self.wideServer(orders: Int(history), durable ? ["--data", directory] : ["--in-memory"])
        let stream = try EventStreamClient(port: server.httpPort, lastEventID: "0", receiveBuffer: 4096)
        guard Self.expectRun(stream, from: 1, through: 100) else { return }
        let manager = try server.client()
        #expect(try manager.command("EVENTS OFF") == "OK EVENTS off")
        let extra: UInt64 = 300
        for i in 1...extra { #expect(try manager.command("SET f07 \(i)") == "OK SET seq=\(history + i) f07=\(i)") }
        guard Self.expectRun(stream, from: 101, through: history) else { return }
        for i in 1...extra {
            guard Self.expectMessage(stream, id: history + i, data: "{\"seq\":\(history + i),\"stock\":{\"f07\":\(i)}}") else { return }
        }
        #expect(try manager.command("SET f99 1") == "OK SET seq=\(history + extra + 1) f99=1")
        Self.expectMessage(stream, id: history + extra + 1, data: "{\"seq\":\(history + extra + 1),\"stock\":{\"f99\":1}}")
    }

    /// An id the store never reached (another store, a wiped one), or one older than the
    /// 10,000 changes kept: one full-state message, then live changes.
    @Test func anIDAheadOrOutOfTheHistoryGetsTheFullState() throws {
        let server = try BoundedWorkTests.serverWithHistory()
        let history = UInt64(BoundedWorkTests.history)
        let cashier = try server.client()
        #expect(try cashier.command("EVENTS OFF") == "OK EVENTS off")
        for i in 1...5 { #expect(try cashier.command("SET mango \(i)").hasPrefix("OK SET seq=\(history + UInt64(i)) ")) }
        let now = history + 5
        let full = Self.fullState(seq: now, [10, 10, 10, 0, 5])
        for lastEventID in ["\(now + 1)", "99999", "4", "1"] {
            let stream = try EventStreamClient(port: server.httpPort, lastEventID: lastEventID)
            Self.expectMessage(stream, id: now, data: full)
            stream.close()
        }
        // The history keeps seq 6...10,005: from 5 on, it can still replay every change.
        let oldest = try EventStreamClient(port: server.httpPort, lastEventID: "5")
        Self.expectMessage(oldest, id: 6, data: #"{"seq":6,"stock":{"kiwi":6}}"#)
        let ahead = try EventStreamClient(port: server.httpPort, lastEventID: "\(now + 100)")
        Self.expectMessage(ahead, id: now, data: full)
        #expect(try cashier.command("SET mango 7") == "OK SET seq=\(now + 1) mango=7")
        Self.expectMessage(ahead, id: now + 1, data: "{\"seq\":\(now + 1),\"stock\":{\"mango\":7}}")
    }

    /// Anything but a decimal seq counts as no id: the full state, never a guess at a number
    /// (a sloppy parse of "2abc" or "+2" would resume from 2 and send seq 3 first).
    @Test(arguments: ["abc", "2abc", "+2", "-1", "2.0", "0x2", "1e0", "", "٢", "99999999999999999999999"])
    func aGarbageLastEventIDGetsTheFullState(lastEventID: String) throws {
        let server = try ExecutableServer(["--in-memory"])
        let cashier = try server.client()
        for i in 1...3 { #expect(try cashier.command("SET kiwi \(i)").hasPrefix("OK SET seq=\(i) ")) }
        let stream = try EventStreamClient(port: server.httpPort, lastEventID: lastEventID)
        #expect(stream.status == 200)
        Self.expectMessage(stream, id: 3, data: Self.fullState(seq: 3, [10, 10, 10, 3, 10]))
    }

    /// Idle streams get a `: ping` comment (every 15 s by default), so proxies and browsers
    /// keep them. In-process, with the interval at 1 s, so the test need not wait out 15.
    @Test func anIdleStreamGetsPingComments() async throws {
        try await RunningServer.with({ $0.eventStreamPingEvery = 1 }) { s in
            let stream = try EventStreamClient(port: try #require(await s.server.httpPort))
            Self.expectMessage(stream, id: 0, data: Self.fullState(seq: 0, [10, 10, 10, 10, 10]))
            let deadline = Date().addingTimeInterval(testDeadline)
            var ping: EventStreamMessage?
            while ping == nil, deadline.timeIntervalSinceNow > 0 {
                guard case .got(let block) = stream.nextBlock(timeout: max(0, deadline.timeIntervalSinceNow)) else { break }
                if block.comments.contains("ping") { ping = block }
            }
            let received = try #require(ping, "no `: ping` within \(testDeadline) s")
            #expect(received.data == nil && received.id == nil, "a ping is a comment only: \(received)")
            // Still a live stream after it.
            let cashier = try s.client()
            #expect(try cashier.command("SET kiwi 2") == "OK SET seq=1 kiwi=2")
            Self.expectMessage(stream, id: 1, data: #"{"seq":1,"stock":{"kiwi":2}}"#)
        }
    }

    /// With a journal, an event never reaches a browser before its change is on disk. The test
    /// hook makes every journal sync hang, so the ORDER below is written but never durable.
    @Test func anEventWaitsUntilItsChangeIsDurable() throws {
        let directory = temporaryDirectory("juice-stream-durable")
        defer { removeTemporary(directory) }
        let server = try ExecutableServer(["--data", directory + "/data"], environment: ["JUICE_TEST_HANG_JOURNAL_SYNC": "1"])
        let stream = try EventStreamClient(port: server.httpPort)
        // The durable state (nothing yet) is shown at once: the stream works.
        Self.expectMessage(stream, id: 0, data: Self.fullState(seq: 0, [10, 10, 10, 10, 10]))
        let cashier = try server.client()
        try cashier.send("ORDER banana")
        let journal = directory + "/data/journal"
        #expect(eventually { readText(journal).contains("banana=8") }, "the order never reached the journal")
        // A negative check, bounded: the change was applied and written before this wait
        // starts, so a server that ignored the gate would send it within milliseconds; 1.5 s is
        // ample for that even on a busy machine, and nothing can make the hung sync complete.
        #expect(stream.nextEvent(timeout: 1.5) == .timeout, "an event went out before its change was durable")
        #expect(cashier.nextLine(timeout: 0.1) == .timeout, "the ORDER was acknowledged before it was durable")
        // A browser arriving now is not shown seq 1 either, as the full state or as a resume.
        for lastEventID in [nil, "0"] {
            let late = try EventStreamClient(port: server.httpPort, lastEventID: lastEventID, readHead: false)
            var lines: [String] = []
            while case .got(let line) = late.connection.nextLine(timeout: 0.5) { lines.append(line) }
            #expect(!lines.contains { $0.hasPrefix("id: 1") || $0.contains("\"banana\":8") }, "\(lines)")
        }
    }
}

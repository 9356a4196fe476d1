import Foundation
import Glibc
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
import Synchronization
import Testing

/// A wall clock a test sets by hand.
final class TestClock: Sendable {
    private let seconds: Mutex<Int64>
    init(_ start: Int64) { seconds = Mutex(start) }
    func set(_ value: Int64) { seconds.withLock { $0 = value } }
    func now() -> Int64 { seconds.withLock { $0 } }
}

extension FruitStore {
    /// Runs commands, their outcomes unread.
    func runAll(_ commands: [StoreCommand]) {
        var unused: [UInt8] = []
        _ = run(commands, peer: "", into: &unused) { _, _ in }
    }
}

/// Lost sales and orders per minute: counted by the store, kept across restarts and compaction.
@Suite(.onOwnThreads) struct SalesTests {
    static func order(_ juice: Int, _ count: Int = 1, key: String? = nil) -> StoreCommand {
        .order(OrderRequest(juice: juice, count: count, key: key))
    }

    @Test("the store counts each order outcome in its wall-clock minute; dup and KEY_REUSED are not outcomes")
    func perMinute() async {
        let noon: Int64 = 1_763_899_200
        let clock = TestClock(noon + 10)
        let store = FruitStore(executor: LoopExecutor(), ledger: StockLedger(menu: .standard), journal: nil)
        await store.setWallClock { clock.now() }
        let (mango, strawberry, banana) = (5, 0, 1)
        await store.runAll([Self.order(mango), Self.order(strawberry, 2), Self.order(banana, key: "k")])
        clock.set(noon + 60 * 3 + 59)
        await store.runAll([Self.order(banana, key: "k"), Self.order(banana, 2, key: "k"), Self.order(strawberry), Self.order(banana)])
        clock.set(noon + 60 * 4)
        let sales = await store.salesSnapshot()
        #expect(sales.perMinute.count == 61)
        #expect(sales.perMinute.last == MinuteCount(start: noon + 240, served: 0, refused: 0))
        #expect(sales.perMinute[56] == MinuteCount(start: noon, served: 2, refused: 1))
        #expect(sales.perMinute[59] == MinuteCount(start: noon + 180, served: 1, refused: 1))
        #expect(sales.ordersServed == 3 && sales.ordersRefused == 2 && sales.seq == 3)
        #expect(sales.lost == [3, 0, 0, 0, 0, 0, 0] && sales.short == [2, 0, 0, 0, 0])
        #expect(sales.sold == [0, 2, 0, 0, 0, 1, 0] && sales.stock == [10, 6, 10, 10, 7])
        #expect(sales.journal == nil && sales.menu == .standard)
    }

    @Test("process figures come from /proc")
    func processFigures() throws {
        let resident = try #require(ProcessFigures.residentBytes())
        #expect(resident > 1 << 20)
        let start = try #require(ProcessFigures.startTimeSeconds)
        #expect(start > 1_600_000_000 && start <= Date().timeIntervalSince1970 + 1)
        let sales = SalesValues(menu: .standard, seq: 0, ordersServed: 0, ordersRefused: 0, stock: [0, 0, 0, 0, 0],
                                sold: Array(repeating: 0, count: 7), lost: Array(repeating: 0, count: 7), short: [0, 0, 0, 0, 0],
                                perMinute: [], journal: nil)
        let text = Metrics.text(.current(sales, lineClients: 1, eventClients: 0, readOnly: false))
        #expect(text.contains("\nprocess_start_time_seconds \(start)\n") && text.contains("\nprocess_resident_memory_bytes "))
    }

    /// The counters a restart must keep, from a STATS line.
    static func counters(_ stats: String) -> [String: Int] {
        values(stats).filter { ["seq", "orders_served", "orders_refused"].contains($0.key) || $0.key.hasPrefix("sold_")
            || $0.key.hasPrefix("lost_") || $0.key.hasPrefix("short_") }
    }

    @Test func lostSalesSurviveRestartsAndCompactionAndNeverCountTwice() throws {
        let dir = temporaryDirectory()
        defer { removeTemporary(dir) }
        var server = try ExecutableServer(["--data", dir])
        var c = try server.client()
        #expect(try c.command("ORDER mango-kiwi 2").hasPrefix("OK ORDER"))
        #expect(try c.command("ORDER strawberry-banana 2") == "ERR OUT_OF_STOCK needs strawberry=20 has strawberry=10")
        #expect(try c.command("ORDER strawberry key=r1") == "ERR OUT_OF_STOCK needs strawberry=16 has strawberry=10")
        #expect(try c.command("ORDER strawberry key=r1").hasSuffix(" dup"))
        #expect(try c.command("ORDER strawberry 2 key=r1").hasPrefix("ERR KEY_REUSED"))
        #expect(try c.command("SET banana 0").hasPrefix("OK SET"))
        #expect(try c.command("ORDER strawberry-banana") == "ERR OUT_OF_STOCK needs banana=1 has banana=0")
        let before = Self.counters(try c.command("STATS"))
        #expect(before["orders_refused"] == 3 && before["lost_strawberry-banana"] == 3 && before["lost_strawberry"] == 1)
        #expect(before["short_strawberry"] == 2 && before["short_banana"] == 1 && before["short_kiwi"] == 0)
        #expect(before["lost_mango-kiwi"] == 0 && before["sold_mango-kiwi"] == 2)
        server.signal(SIGTERM)
        #expect(server.waitForExit() == 0)

        // A restart replays the journal: the same counters, and a retry is still a dup.
        server = try ExecutableServer(["--data", dir, "--journal-max-bytes", "2048"])
        c = try server.client()
        #expect(Self.counters(try c.command("STATS")) == before)
        #expect(try c.command("ORDER strawberry key=r1").hasSuffix(" dup"))
        #expect(Self.counters(try c.command("STATS")) == before)
        server.signal(SIGTERM)
        #expect(server.waitForExit() == 0)

        // Enough refusals to pass --journal-max-bytes: the journal is compacted into a snapshot
        // holding the counters, and the refusals after it follow in the journal. (63,000 lost
        // juices from one address: past the default allowance of 100 a minute, so raised.)
        server = try ExecutableServer(["--data", dir, "--journal-max-bytes", "2048", "--lost-sales-per-minute", "1000000"])
        c = try server.client()
        for _ in 0..<60 { #expect(try c.command("ORDER mango-kiwi 1000").hasPrefix("ERR OUT_OF_STOCK")) }
        #expect(eventually { server.log().contains("compacted the journal") }, "\(server.log())")
        for _ in 0..<3 { #expect(try c.command("ORDER mango-kiwi 1000").hasPrefix("ERR OUT_OF_STOCK")) }
        let compacted = Self.counters(try c.command("STATS"))
        #expect(compacted["lost_mango-kiwi"] == 63_000 && compacted["short_mango"] == 63 && compacted["short_kiwi"] == 63)
        #expect(compacted["orders_refused"] == 66 && compacted["lost_strawberry-banana"] == 3)
        server.signal(SIGTERM)
        #expect(server.waitForExit() == 0)
        let snapshot = String(decoding: FileManager.default.contents(atPath: dir + "/snapshot") ?? Data(), as: UTF8.self)
        #expect(snapshot.contains(" L strawberry-banana 3\n") && snapshot.contains(" T banana 1\n"), "\(snapshot)")

        for _ in 0..<2 {
            server = try ExecutableServer(["--data", dir, "--journal-max-bytes", "2048"])
            c = try server.client()
            #expect(Self.counters(try c.command("STATS")) == compacted)
            server.signal(SIGTERM)
            #expect(server.waitForExit() == 0)
        }
    }
}

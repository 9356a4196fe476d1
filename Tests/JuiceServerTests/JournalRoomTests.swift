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

/// The bookkeeping that lets the store refuse a change before applying it (`JournalRoom`), and
/// the bound it relies on: no record a change writes is bigger than `JournalRecord.maxBytes`.
/// (The real full disk is DiskFullTests'.)
@Suite(.onOwnThreads) struct JournalRoomTests {
    @Test("free room counts every byte appended after the job that reported it")
    func freeRoom() {
        var room = JournalRoom(recordBound: 100, free: 1000)
        room.append(300)
        room.handOver(300)
        let mark = room.handed
        room.append(200)  // pending, after the job below was queued
        #expect(room.free == 500)
        // The write queued with the first 300 bytes reports what it left free.
        room.reported(mark: mark, free: 700)
        #expect(room.free == 500)
        // A compaction queued now empties the file and grows it: the 200 pending bytes come off.
        room.handOver(200)
        room.reported(mark: 300, free: 4096)
        #expect(room.free == 3896)
    }

    @Test("a change is refused once less than a record's bound is free, and while growing fails")
    func refusal() {
        var room = JournalRoom(recordBound: 100, free: 150)
        #expect(room.refusal() == nil)
        #expect(room.growthDue() != nil, "less than the headroom is free")
        room.append(60)
        #expect(room.refusal() == .journalGrowing)
        #expect(room.readOnly == nil)
        room.growing = true
        #expect(room.growthDue() == nil, "one growth at a time")
        room.growing = false
        #expect(room.growthFailed("disk full: x")?.hasPrefix("read-only: disk full: x; ") == true)
        #expect(room.growthFailed("disk full: x") == nil, "logged once, not on every retry")
        #expect(room.refusal() == .readOnly(reason: "disk full: x"))
        #expect(room.writeFailed("disk full: y") == nil)
        #expect(room.grew() == nil, "a write still waits for room")
        #expect(room.wrote()?.hasPrefix("writable again: ") == true)
        #expect(room.readOnly == nil)
    }

    @Test("the biggest record a change or refusal can write fits the bound")
    func recordBound() throws {
        let menu = Menu.standard
        let bound = JournalRecord.maxBytes(under: menu)
        let longName = String(repeating: "가", count: NameRule.maxBytes / 3)
        let key = String(repeating: "k", count: Limits.maxKeyBytes)
        let recipe = try #require(menu.juices.map(\.recipe.count).max())
        let left = (0..<recipe).map { _ in JournalRecord.NamedValue(longName, Int.max) }
        let records: [JournalRecord] = [
            .order(lsn: .max, seq: .max, juice: longName, count: Int.max, key: key, left: left),
            .refusal(lsn: .max, juice: longName, count: Int.max, key: key, had: left),
            .restock(lsn: .max, seq: .max, fruit: longName, amount: Int.max, total: Int.max),
            .set(lsn: .max, seq: .max, fruit: longName, value: Int.max),
        ]
        for record in records {
            #expect(record.framed().count <= bound, "\(record.payload)")
        }
    }
}

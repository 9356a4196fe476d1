import Testing
@testable import JuiceCore
import JuiceDomain
import JuiceStorage

// What the JournalRecord tests read and write: one record of every kind, a file of them.

let everyRecord: [JournalRecord] = [
    .order(lsn: 1, seq: 1, juice: "mango-kiwi", count: 2, key: nil, left: [.init("mango", 6), .init("kiwi", 8)]),
    .order(lsn: 2, seq: 2, juice: "mango", count: 1000, key: "abc-1.2_3:4", left: [.init("mango", 0)]),
    .order(lsn: 3, seq: 3, juice: "망키쥬스", count: 1, key: "k", left: [.init("망고", 8)]),
    .refusal(lsn: 4, juice: "strawberry-banana", count: 2, key: nil, had: [.init("strawberry", 10), .init("banana", 10)]),
    .refusal(lsn: 5, juice: "banana", count: 1, key: "r", had: [.init("banana", 0)]),
    .restock(lsn: 6, seq: 4, fruit: "kiwi", amount: 5, total: 15),
    .restock(lsn: 7, seq: 5, fruit: "kiwi", amount: 1_000_000_000, total: 1_000_000_000),
    .set(lsn: 8, seq: 6, fruit: "kiwi", value: 0),
    .set(lsn: JournalRecord.maxCounter, seq: JournalRecord.maxCounter, fruit: "딸기", value: 1_000_000_000),
    .header(lsn: 9, seq: 6, served: 3, refused: 2),
    .header(lsn: 0, seq: 0, served: 0, refused: 0),
    .fruit(name: "strawberry", stock: 10),
    .fruit(name: "키위", stock: 0),
    .sold(juice: "mango", count: 12),
    .sold(juice: "mango-kiwi", count: JournalRecord.maxCounter),
    .key(key: "k-1", juice: "mango-kiwi", count: 2, reply: "OK ORDER mango-kiwi 2 seq=1 mango=6 kiwi=8"),
    .key(key: "r", juice: "banana", count: 1, reply: "ERR OUT_OF_STOCK needs banana=2 has banana=0"),
    .key(key: "s", juice: "banana", count: 1, reply: "OK ORDER two  spaces  kept "),
    .lost(juice: "mango-kiwi", count: 1000),
    .lost(juice: "망고쥬스", count: JournalRecord.maxCounter),
    .short(fruit: "kiwi", count: 0),
    .short(fruit: "딸기", count: 7),
    // Fields are split on the space byte: a name that begins with a combining mark (which a
    // split on Characters merges with the space before it) still comes back.
    .fruit(name: "\u{301}kiwi", stock: 10),
    .order(lsn: 10, seq: 7, juice: "\u{200D}x", count: 1, key: nil, left: [.init("\u{FE0F}y", 1), .init("\u{301}kiwi", 2)]),
    .end(records: 0),
    .end(records: 123_456),
    // Version 2: a time on every change and refusal, keys on RESTOCK and SET, keys with their time and write.
    .order(lsn: 11, seq: 8, juice: "mango", count: 1, key: "t-1", left: [.init("mango", 6)], time: 1_795_600_000),
    .order(lsn: 12, seq: 9, juice: "mango", count: 1, key: nil, left: [.init("mango", 5)], time: 0),
    .refusal(lsn: 13, juice: "banana", count: 3, key: "t-2", had: [.init("banana", 0)], time: 1_795_600_001),
    .refusal(lsn: 14, juice: "banana", count: 1000, key: nil, had: [.init("banana", 0)], time: JournalRecord.times.upperBound, counted: false),
    .restock(lsn: 15, seq: 10, fruit: "kiwi", amount: 5, total: 20, key: "editor-1", time: 1_795_600_002),
    .restock(lsn: 16, seq: 11, fruit: "kiwi", amount: 5, total: 25, key: nil, time: 1_795_600_002),
    .set(lsn: 17, seq: 12, fruit: "kiwi", value: 0, key: "editor-2", time: 1_795_600_003),
    .set(lsn: 18, seq: 13, fruit: "kiwi", value: 7, key: nil, time: 1_795_600_003),
    .rememberedKey(key: "t-1", write: .order, name: "mango", number: 1, reply: "OK ORDER mango 1 seq=8 mango=6", time: 1_795_600_000),
    .rememberedKey(key: "t-2", write: .order, name: "banana", number: 3, reply: "ERR OUT_OF_STOCK needs banana=6 has banana=0", time: 7),
    .rememberedKey(key: "editor-1", write: .restock, name: "kiwi", number: 5, reply: "OK RESTOCK seq=10 kiwi=20", time: 1_795_600_002),
    .rememberedKey(key: "editor-2", write: .set, name: "kiwi", number: 0, reply: "OK SET seq=12 kiwi=0", time: 1_795_600_003),
    .hour(start: 1_795_600_800, day: 20_782, offset: 32_400, served: 3, refused: 1,
          counts: [.init(.sold, "mango", 2), .init(.lost, "망고쥬스", 1), .init(.short, "kiwi", 1), .init(.ranOut, "kiwi", 1)]),
    .hour(start: 1_762_059_600, day: 20_392, offset: -18_000, served: 0, refused: 0, counts: []),
]

func framedFile(_ records: [JournalRecord]) -> (bytes: [UInt8], starts: [Int]) {
    var out: [UInt8] = []
    var starts: [Int] = []
    for r in records {
        starts.append(out.count)
        out += r.framed()
    }
    return (out, starts)
}

func hex8(_ v: UInt32) -> String {
    let s = String(v, radix: 16)
    return String(repeating: "0", count: 8 - s.count) + s
}

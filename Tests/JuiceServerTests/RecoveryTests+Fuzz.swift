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

/// Recovery fuzzed: random and mutated checksum-valid records, and consistent histories written
/// the way the store writes them (the rest of `RecoveryTests` is in RecoveryTests.swift).
extension RecoveryTests {

    /// Tokens a damaged or crafted record might hold.
    static let vocabulary: [[UInt8]] = ([
        "-1", "0", "1", "2", "999", "1000", "1001", "999999999", "1000000000", "1000000001", "9223372036854775807",
        "9223372036854775808", "18446744073709551615", "18446744073709551616", "99999999999999999999999", "+5", "007",
        "", "banana", "kiwi", "딸기", "\u{301}kiwi", "durian", "strawberry-banana", "a=b", "-", "key=k", "key=",
        "key=bad/key", "key=-", "banana=8", "banana=-1", "kiwi=1000000001", "=5", "a=b=c", "OK", "ORDER", "ERR",
        "O", "R", "A", "S", "H", "F", "D", "L", "T", "K", "E", "Z",
    ].map { Array($0.utf8) }) + [[0x00], [0xFF], [0xC3], [0x0A], [0x0D], [0x09], [0xE2, 0x80, 0xAE], [0xC2, 0x85]]

    static func mutate(_ payload: [UInt8], _ rng: inout SeededRNG) -> [UInt8] {
        var tokens = payload.split(separator: 0x20, omittingEmptySubsequences: false).map(Array.init)
        for _ in 0..<Int.random(in: 1...3, using: &rng) {
            let i = Int.random(in: 0..<tokens.count, using: &rng)
            switch Int.random(in: 0..<7, using: &rng) {
            case 0: tokens[i] = vocabulary.randomElement(using: &rng)!
            case 1: tokens.insert(vocabulary.randomElement(using: &rng)!, at: i)
            case 2: if tokens.count > 1 { tokens.remove(at: i) }
            case 3: tokens.swapAt(i, Int.random(in: 0..<tokens.count, using: &rng))
            case 4 where !tokens[i].isEmpty:
                tokens[i][Int.random(in: 0..<tokens[i].count, using: &rng)] ^= UInt8(1 << Int.random(in: 0..<8, using: &rng))
            case 5: tokens[i].append(UInt8.random(in: 0x30...0x39, using: &rng))
            default: tokens[i] = (0..<Int.random(in: 0...6, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) }
            }
        }
        return Array(tokens.joined(separator: [0x20]))
    }

    /// A consistent history written the way the store writes it.
    static func history(_ rng: inout SeededRNG) -> [[UInt8]] {
        var ledger = StockLedger(menu: .standard, initialStock: 10)
        let menu = ledger.menu
        var out: [[UInt8]] = []
        for lsn in UInt64(1)...UInt64(12) {
            let fruit = Int.random(in: 0..<menu.fruits.count, using: &rng)
            switch Int.random(in: 0..<4, using: &rng) {
            case 0:
                let request = OrderRequest(juice: Int.random(in: 0..<menu.juices.count, using: &rng),
                                           count: Int.random(in: 1...3, using: &rng), key: Bool.random(using: &rng) ? "k\(lsn)" : nil)
                switch ledger.order(request) {
                case .applied(let change):
                    out.append(Array(JournalRecord.order(lsn: lsn, seq: change.seq, juice: menu.juices[request.juice].name,
                        count: request.count, key: request.key,
                        left: change.touched.map { .init(menu.fruits[$0.fruit].name, $0.value) }).payload.utf8))
                case .outOfStock(_, let have):
                    let recipe = menu.juices[request.juice].recipe
                    out.append(Array(JournalRecord.refusal(lsn: lsn, juice: menu.juices[request.juice].name, count: request.count,
                        key: request.key, had: zip(recipe, have).map { .init(menu.fruits[$0.0.fruit].name, $0.1) }).payload.utf8))
                default:
                    return out
                }
            case 1:
                guard let change = ledger.restock(fruit: fruit, amount: 5) else { return out }
                out.append(Array(JournalRecord.restock(lsn: lsn, seq: change.seq, fruit: menu.fruits[fruit].name, amount: 5,
                                                       total: change.touched[0].value).payload.utf8))
            default:
                let change = ledger.set(fruit: fruit, amount: Int.random(in: 0...20, using: &rng))
                out.append(Array(JournalRecord.set(lsn: lsn, seq: change.seq, fruit: menu.fruits[fruit].name,
                                                   value: change.touched[0].value).payload.utf8))
            }
        }
        return out
    }

    @Test("fuzz: random and mutated checksum-valid records give a clean start or a clean refusal")
    func fuzz() {
        var rng = SeededRNG(seed: 0x6A75_6963_6521)
        let freshSnapshot = Snapshot.encode(StockLedger(menu: .standard, initialStock: 10), lsn: 0)
        var started = 0, refused = 0
        for round in 0..<3000 {
            var snapshotRecords = freshSnapshot.split(separator: 0x0A).map { Array($0.drop { $0 != 0x20 }.dropFirst().drop { $0 != 0x20 }.dropFirst()) }
            var journalRecords = Self.history(&rng)
            let inSnapshot = round % 5 == 0
            if inSnapshot {
                let i = Int.random(in: 0..<snapshotRecords.count, using: &rng)
                snapshotRecords[i] = Self.mutate(snapshotRecords[i], &rng)
            } else if journalRecords.isEmpty || round % 7 == 1 {
                journalRecords.append(Self.mutate([UInt8](Self.vocabulary.randomElement(using: &rng)!), &rng))
            } else {
                let i = Int.random(in: 0..<journalRecords.count, using: &rng)
                journalRecords[i] = Self.mutate(journalRecords[i], &rng)
                if Bool.random(using: &rng) { journalRecords.removeSubrange((i + 1)...) }
            }
            let snapshot = snapshotRecords.flatMap { Self.framed($0) }
            let journal = journalRecords.flatMap { Self.framed($0) }
            do {
                let recovered = try Self.recover(snapshot: snapshot, journal: journal)
                started += 1
                // Every checksum-valid record is judged: none is cut off as torn.
                #expect(recovered.tornTail == nil, "round \(round)")
                #expect(recovered.ledger.stock.allSatisfy { (0...Limits.maxStock).contains($0) }, "round \(round)")
                #expect(recovered.ledger.seq <= UInt64(Int64.max) && recovered.lsn <= UInt64(Int64.max), "round \(round)")
                // What the reader took is exactly what the writer writes for it.
                for file in [snapshot, journal] {
                    let read = RecordReader.read(file)
                    #expect(read.records.flatMap { $0.record.framed() } == file, "round \(round)")
                }
            } catch {
                refused += 1
                let path = inSnapshot ? Self.snapshotPath : Self.journalPath
                #expect(error.description.contains(path) && error.description.contains(" offset "), "round \(round): \(error)")
            }
        }
        // Both outcomes happen, so the fuzz exercises both.
        #expect(started > 100 && refused > 100, "started \(started), refused \(refused)")
    }
}

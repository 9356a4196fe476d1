import Foundation
import JuiceCore
import JuiceDomain
import JuiceStorage
@testable import JuiceServer
import Testing

/// The backup file judged in-process: what `BackupFile.encode` writes reads back as the same
/// state, and any one changed byte, or any cut, is refused with the file and an offset at or
/// before the damage: never read as a smaller state.
@Suite(.onOwnThreads) struct BackupFileTests {
    static let path = "/backups/juice.backup"

    /// A store after three keyed orders and a restock, encoded as a backup.
    static func sample() throws -> [UInt8] {
        let journal = ["O @1795000000 1 1 banana 1 key=k1 banana=8", "O @1795000060 2 2 banana 1 key=k2 banana=6",
                       "A @1795000120 3 3 kiwi 5 15 key=k3"].flatMap { RecoveryTests.framed($0) }
        let recovered = try Recovery.recover(StockLedger(menu: .standard, initialStock: 10), snapshot: nil,
                                             journal: Recovery.File(path: "/data/journal", bytes: journal), now: 1_795_000_200)
        let snapshot = Snapshot.encode(recovered.ledger, lsn: recovered.lsn)
        return BackupFile.encode(snapshot: snapshot, menu: .standard, calendar: BusinessCalendar(), takenAt: 1_795_000_300)
    }

    /// Where each framed part begins.
    static func partStarts(_ bytes: [UInt8]) -> [Int] {
        var starts: [Int] = []
        var i = 0
        while i < bytes.count {
            starts.append(i)
            var length = 0
            while bytes[i] != 0x20 { length = length * 10 + Int(bytes[i] - 0x30); i += 1 }
            i += 1 + 9 + length + 1
        }
        return starts
    }

    static func refusedOffset(_ bytes: [UInt8]) -> (Int, String)? {
        do {
            _ = try BackupFile.read(bytes, path: path, now: 1_795_000_400)
            return nil
        } catch {
            guard case .badBackup(let p, let offset, _) = error, p == path else { return (-1, error.description) }
            return (offset, error.description)
        }
    }

    @Test("a backup reads back as the state it was made from: seq, stock, keys, its menu and calendar")
    func roundTrip() throws {
        let contents = try BackupFile.read(Self.sample(), path: Self.path, now: 1_795_000_400)
        #expect(contents.ledger.seq == 3 && contents.lsn == 3 && contents.takenAt == 1_795_000_300)
        #expect(contents.ledger.keys.count == 3)
        #expect(contents.ledger.stock[Menu.standard.fruitIndex("banana")!] == 6)
        #expect(contents.menu == .standard)
        let summary = BackupSummary(contents)
        #expect(summary.seq == 3 && summary.keys == 3 && summary.lastChange == 1_795_000_120 && summary.historyDays == 1)
        #expect(summary.lines.contains("last change:  2026-11-18T11:08:40Z"))
    }

    @Test("any one byte changed anywhere is refused, at the offset of the part that holds it")
    func flippedBytes() throws {
        let good = try Self.sample()
        let starts = Self.partStarts(good)
        for i in good.indices {
            var bad = good
            bad[i] ^= 0x04
            let refusal = try #require(Self.refusedOffset(bad), "a flip at \(i) was read as a backup")
            let part = starts.last { $0 <= i }!
            #expect(refusal.0 == part, "flip at \(i): \(refusal.1)")
        }
    }

    @Test("a backup cut short anywhere is refused, at or before the cut; one with bytes added too")
    func cutShort() throws {
        let good = try Self.sample()
        for length in 0..<good.count {
            let refusal = try #require(Self.refusedOffset(Array(good.prefix(length))), "cut at \(length) was read as a backup")
            #expect(refusal.0 >= 0 && refusal.0 <= length, "cut at \(length): \(refusal.1)")
        }
        let cutAtPart = Array(good.prefix(Self.partStarts(good).last!))
        #expect(Self.refusedOffset(cutAtPart)?.1.contains("cut short") == true)
        #expect(Self.refusedOffset(good + good.suffix(40))?.0 == good.count)
    }

    @Test("a snapshot or a journal is not taken for a backup")
    func notABackup() throws {
        let snapshot = Snapshot.encode(StockLedger(menu: .standard), lsn: 0)
        #expect(Self.refusedOffset(snapshot)?.1.contains("not a juice-server backup") == true)
        #expect(Self.refusedOffset(Array("hello\n".utf8)) != nil)
    }
}

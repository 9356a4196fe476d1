import Dispatch
import Foundation
@testable import JuiceCore
@testable import JuiceServer
import Testing

/// The journal's group commit on a real file, in-process: one write in flight, every record that
/// arrives meanwhile in the next one, and compaction into a snapshot. (Crashes, torn tails and a
/// full disk are DurabilityTests' and DiskFullTests', against the real executable.)
@Suite struct GroupCommitTests {
    static func banana(_ lsn: UInt64) -> JournalRecord {
        .set(lsn: lsn, seq: lsn, fruit: "banana", value: Int(lsn))
    }

    static func make(in dir: String, loop: DispatchQueue) throws -> GroupCommit {
        let file = try JournalFile(path: dir + "/journal", directory: dir, validLength: 0)
        return try GroupCommit(file: file, snapshotPath: dir + "/snapshot", directory: dir, lsn: 0, journalBytes: 0, loop: loop)
    }

    @Test("records that arrive while a write is in flight wait for it and go together in the next")
    func oneWriteInFlightCarriesEverythingThatArrivedMeanwhile() throws {
        let dir = temporaryDirectory()
        defer { removeTemporary(dir) }
        let loop = DispatchQueue(label: "test.loop")
        let journal = try Self.make(in: dir, loop: loop)
        let durable = DurableLog()
        loop.sync {
            journal.whenDurable = { durable.add($0) }
            // On the loop, as the store calls it: no write can finish in between.
            journal.append(Self.banana)
            journal.flush()
            for _ in 0..<3 {
                journal.append(Self.banana)
                journal.flush()
            }
            #expect(journal.counts == JournalCounts(syncs: 1, records: 1))
            #expect(journal.lastLSN == 4 && journal.durableLSN == 0)
        }
        #expect(eventually { durable.all == [1, 4] })
        loop.sync {
            #expect(journal.counts == JournalCounts(syncs: 2, records: 4))
            #expect(journal.durableLSN == 4)
        }
        let bytes = [UInt8](try #require(FileManager.default.contents(atPath: dir + "/journal")))
        #expect(bytes.count == JournalFile.chunk, "preallocated in one chunk of zeros")
        let read = RecordReader.read(bytes)
        #expect(read.problem == nil)
        #expect(read.records.map(\.record) == (1...4).map(Self.banana))
    }

    @Test("a compaction makes the state at the last record the snapshot, and starts the journal empty")
    func compaction() throws {
        let dir = temporaryDirectory()
        defer { removeTemporary(dir) }
        let loop = DispatchQueue(label: "test.loop")
        let journal = try Self.make(in: dir, loop: loop)
        let ledger = StockLedger(menu: .standard, initialStock: 7)
        loop.sync {
            journal.append(Self.banana)
            journal.flush()
            // As the store does after a run of commands: the write is still in flight.
            #expect(journal.journalBytes > 0 && journal.canCompact)
            journal.compact(ledger)
            #expect(!journal.canCompact, "one compaction at a time")
        }
        #expect(eventually { FileManager.default.fileExists(atPath: dir + "/snapshot") })
        // Emptied, and preallocated again: one chunk of zeros, no record.
        #expect(eventually {
            let bytes = FileManager.default.contents(atPath: dir + "/journal").map { [UInt8]($0) } ?? []
            return bytes.count == JournalFile.chunk && RecordReader.read(bytes).records.isEmpty
        })
        let snapshot = [UInt8](try #require(FileManager.default.contents(atPath: dir + "/snapshot")))
        #expect(snapshot == Snapshot.encode(ledger, lsn: 1))
        let recovered = try Recovery.recover(StockLedger(menu: .standard, initialStock: 0),
                                             snapshot: Recovery.File(path: dir + "/snapshot", bytes: snapshot), journal: nil)
        #expect(recovered.lsn == 1 && recovered.ledger.stock == ledger.stock)
    }
}

extension GroupCommitTests {
    /// The store compacts after a run of commands, when a write may be in flight and records
    /// may wait for the next one: the snapshot holds those too, they are written into the fresh
    /// journal, reported durable as usual, and skipped by replay.
    @Test("a compaction while records are pending: they are in the snapshot, and replay skips them in the new journal")
    func compactionWithPendingRecords() throws {
        let dir = temporaryDirectory()
        defer { removeTemporary(dir) }
        let loop = DispatchQueue(label: "test.loop")
        let journal = try Self.make(in: dir, loop: loop)
        let durable = DurableLog()
        var ledger = StockLedger(menu: .standard, initialStock: 7)
        loop.sync {
            journal.whenDurable = { durable.add($0) }
            journal.append(Self.banana)
            journal.flush()
            journal.append(Self.banana)
            journal.flush()  // waits: the first write is in flight
            _ = ledger.set(fruit: 1, amount: 2)
            journal.compact(ledger)
        }
        #expect(eventually { durable.all == [1, 2] })
        #expect(eventually { loop.sync { journal.canCompact } }, "the compaction finished")
        let snapshot = [UInt8](try #require(FileManager.default.contents(atPath: dir + "/snapshot")))
        #expect(snapshot == Snapshot.encode(ledger, lsn: 2))
        let bytes = [UInt8](try #require(FileManager.default.contents(atPath: dir + "/journal")))
        #expect(RecordReader.read(bytes).records.map(\.record) == [Self.banana(2)], "written after the reset")
        let recovered = try Recovery.recover(StockLedger(menu: .standard, initialStock: 0),
                                             snapshot: Recovery.File(path: dir + "/snapshot", bytes: snapshot),
                                             journal: Recovery.File(path: dir + "/journal", bytes: bytes))
        #expect(recovered.lsn == 2 && recovered.ledger.stock == ledger.stock)
    }
}

/// The positions `whenDurable` reported, in order.
final class DurableLog: @unchecked Sendable {
    private let lock = NSLock()
    private var lsns: [UInt64] = []

    func add(_ lsn: UInt64) {
        lock.lock()
        lsns.append(lsn)
        lock.unlock()
    }

    var all: [UInt64] {
        lock.lock()
        defer { lock.unlock() }
        return lsns
    }
}

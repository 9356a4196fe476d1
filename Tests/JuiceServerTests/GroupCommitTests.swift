import Dispatch
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

/// The journal's group commit on a real file, in-process: one write in flight, every record that
/// arrives meanwhile in the next one, and compaction into a snapshot. (Crashes, torn tails and a
/// full disk are DurabilityTests' and DiskFullTests', against the real executable.)
@Suite(.onOwnThreads) struct GroupCommitTests {
    static func banana(_ lsn: UInt64) -> JournalRecord {
        .set(lsn: lsn, seq: lsn, fruit: "banana", value: Int(lsn))
    }

    @Test("records that arrive while a write is in flight wait for it and go together in the next")
    func oneWriteInFlightCarriesEverythingThatArrivedMeanwhile() throws {
        let f = try JournalFixture()
        let journal = f.journal
        f.loop.sync {
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
        #expect(eventually { f.durable.all == [1, 4] })
        f.loop.sync {
            #expect(journal.counts == JournalCounts(syncs: 2, records: 4))
            #expect(journal.durableLSN == 4)
        }
        let bytes = f.bytes("journal")
        #expect(bytes.count == JournalFile.chunk, "preallocated in one chunk of zeros")
        let read = RecordReader.read(bytes)
        #expect(read.problem == nil)
        #expect(read.records.map(\.record) == (1...4).map(Self.banana))
    }

    /// The store compacts after a run of commands, when a write may be in flight and records
    /// may wait for the next one: the snapshot holds those too, they are written into the new
    /// journal after a copy of the old one's last record, reported durable as usual, and skipped
    /// by replay.
    @Test("a compaction makes the state at the last record the snapshot and starts a new journal from the old one's last record; records pending then go into both, and replay skips them",
          arguments: [0, 1])
    func compaction(pending: Int) throws {
        let f = try JournalFixture()
        let journal = f.journal
        var ledger = StockLedger(menu: .standard, initialStock: 7)
        let inode = try DiskFullTests.fileIdentity(f.dir + "/journal")[0]
        f.loop.sync {
            journal.append(Self.banana)
            journal.flush()
            for _ in 0..<pending {
                journal.append(Self.banana)
                journal.flush()  // waits: the first write is in flight
            }
            _ = ledger.set(fruit: 1, amount: 2)
            #expect(journal.journalBytes > 0 && journal.canCompact)
            journal.compact(ledger)
            #expect(!journal.canCompact, "one compaction at a time")
        }
        let last = UInt64(1 + pending)
        #expect(eventually { f.durable.all == Array(1...last) })
        #expect(eventually { f.loop.sync { journal.canCompact } }, "the compaction finished")
        let snapshot = f.bytes("snapshot")
        #expect(snapshot == Snapshot.encode(ledger, lsn: last))
        // A new file, preallocated in one chunk: the old journal's last record (lsn 1, the
        // snapshot has it), then what was pending.
        #expect(try DiskFullTests.fileIdentity(f.dir + "/journal")[0] != inode, "renamed into place, not rewritten")
        #expect(!FileManager.default.fileExists(atPath: f.dir + "/journal.next"))
        let bytes = f.bytes("journal")
        #expect(bytes.count == JournalFile.chunk)
        #expect(RecordReader.read(bytes).records.map(\.record) == (1...last).map(Self.banana))
        let recovered = try Recovery.recover(StockLedger(menu: .standard, initialStock: 0),
                                             snapshot: Recovery.File(path: f.dir + "/snapshot", bytes: snapshot),
                                             journal: Recovery.File(path: f.dir + "/journal", bytes: bytes))
        #expect(recovered.lsn == last && recovered.ledger.stock == ledger.stock)
    }
}

/// A journal in a fresh directory, run on a loop queue of its own as the store runs it, with
/// the positions it reported durable. The directory goes with the fixture.
final class JournalFixture {
    let dir = temporaryDirectory()
    let loop = DispatchQueue(label: "test.loop")
    let durable = DurableLog()
    let journal: GroupCommit

    init() throws {
        let file = try JournalFile(path: dir + "/journal", directory: dir, validLength: 0)
        // Made on its loop, as the server makes it.
        journal = try loop.sync { [dir, loop] in
            try GroupCommit(file: file, snapshotPath: dir + "/snapshot", directory: dir, lsn: 0, journalBytes: 0, loop: loop)
        }
        loop.sync { [journal, durable] in journal.durabilityListener = durable }
    }

    deinit {
        removeTemporary(dir)
    }

    /// A data file's bytes ([] if it is missing).
    func bytes(_ name: String) -> [UInt8] {
        FileManager.default.contents(atPath: dir + "/" + name).map { [UInt8]($0) } ?? []
    }
}

/// The positions the journal reported durable, in order.
final class DurableLog: DurabilityListener, @unchecked Sendable {
    func durable(upTo lsn: UInt64) { add(lsn) }

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

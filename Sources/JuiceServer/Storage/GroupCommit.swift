import Dispatch
import JuiceCore

/// Group commit: the store appends records here; they go to the journal file in one write and
/// one fdatasync per group, on two threads of their own, so the loop never blocks on the disk.
///
/// One write is in flight at a time: records that arrive while it runs wait in `pending`, and
/// the next write carries all of them. Overlapping syncs make each group smaller, and the disk
/// then spends its time on more, smaller syncs; one at a time gives the biggest groups and the
/// most orders a second (README, Performance: "Design choices, measured").
///
/// A write is `pwrite`n on `writeQueue` (serial: records land in order, and a compaction queues
/// behind the writes handed over before it), then synced on `syncQueue`, then reported on the
/// loop. A failed write or sync stops the server (`StorageError.stopServer`, exit 3).
///
/// Everything here but the two queues' work runs on the loop (`loop`), where the store calls it.
final class GroupCommit: @unchecked Sendable {
    // @unchecked: every `var` is touched only on the loop queue (the store's executor): the
    // journal threads get copies of what they need and report back with `loop.async`.
    private let file: JournalFile
    private let snapshotPath: String
    private let directory: String
    private let loop: DispatchQueue
    private let writeQueue = DispatchQueue(label: "juice-server.journal")
    private let syncQueue = DispatchQueue(label: "juice-server.journal-sync")

    /// The position of the last record appended, of the last one handed to the journal thread,
    /// and of the last one on disk.
    private(set) var lastLSN: UInt64
    private var handedLSN: UInt64
    private(set) var durableLSN: UInt64
    /// Records framed since the last write was handed over, and whether a write is under way.
    private var pending: [UInt8] = []
    private var writing = false
    /// Told (on the loop) each time a write is durable, with the position now durable.
    var whenDurable: ((UInt64) -> Void)?

    /// Bytes handed to the journal since it was last reset, and the size that triggers compaction.
    private var journalBytes: Int
    private let journalMaxBytes: Int
    private var compacting = false
    /// Writes (each one fdatasync) and the records they carried, for STATS and `/metrics`.
    private(set) var counts = JournalCounts.zero

    /// Over a journal that holds `journalBytes` of good records up to position `lsn`.
    init(file: JournalFile, snapshotPath: String, directory: String, lsn: UInt64, journalBytes: Int,
         journalMaxBytes: Int, loop: DispatchQueue) {
        self.file = file
        self.snapshotPath = snapshotPath
        self.directory = directory
        self.loop = loop
        lastLSN = lsn
        handedLSN = lsn
        durableLSN = lsn
        self.journalBytes = journalBytes
        self.journalMaxBytes = journalMaxBytes
    }

    /// Appends the record `make` builds for the next journal position. It goes out with the next
    /// `flush`.
    func append(_ make: (_ lsn: UInt64) -> JournalRecord) {
        lastLSN += 1
        pending.append(contentsOf: make(lastLSN).framed())
    }

    /// Hands everything appended so far to the journal thread, unless a write is already under
    /// way: then it waits, and the next write carries every record that arrived meanwhile.
    func flush() {
        guard !writing, !pending.isEmpty else { return }
        writing = true
        let bytes = pending
        pending = []
        journalBytes += bytes.count
        let upTo = lastLSN
        counts.syncs += 1
        counts.records += upTo - handedLSN
        handedLSN = upTo
        writeQueue.async { [file, syncQueue, loop] in
            do throws(StorageError) { try file.append(bytes) } catch { error.stopServer() }
            syncQueue.async {
                JournalTestHook.beforeSync()
                do throws(StorageError) { try file.sync() } catch { error.stopServer() }
                JournalTestHook.afterSync()
                loop.async { self.written(upTo: upTo) }
            }
        }
    }

    private func written(upTo lsn: UInt64) {
        writing = false
        flush()
        durableLSN = lsn
        whenDurable?(lsn)
    }

    // MARK: - Compaction

    /// Past `--journal-max-bytes`, the state at the last record appended becomes a snapshot and
    /// the journal starts afresh. The store calls this with its ledger when a write is durable
    /// (from `whenDurable`), so a write that has just been handed over carries every record
    /// appended: the snapshot at `lastLSN` is queued behind it. The snapshot is encoded here, on
    /// the loop (its cost grows with the remembered keys, up to `Limits.rememberedKeys` `K`
    /// records, once per compaction); the disk work runs on the journal thread. A crash in
    /// between is harmless: replay skips journal records the snapshot already holds.
    func compactIfDue(_ ledger: StockLedger) {
        guard !compacting, journalBytes >= journalMaxBytes else { return }
        assert(pending.isEmpty, "a compaction would drop records not yet handed to the journal")
        compacting = true
        let snapshot = Snapshot.encode(ledger, lsn: lastLSN)
        let covered = journalBytes
        let seq = ledger.seq
        writeQueue.async { [file, snapshotPath, directory, loop] in
            do throws(StorageError) {
                try Snapshot.write(snapshot, to: snapshotPath, directory: directory)
                try file.reset()
            } catch {
                StorageError("compaction: \(error)").stopServer()
            }
            loop.async { self.compacted(coveredBytes: covered, seq: seq, snapshotBytes: snapshot.count) }
        }
    }

    private func compacted(coveredBytes: Int, seq: UInt64, snapshotBytes: Int) {
        compacting = false
        journalBytes -= coveredBytes
        Log.info("compacted the journal: snapshot at seq=\(seq) (\(snapshotBytes) bytes), \(coveredBytes) journal bytes dropped")
    }
}

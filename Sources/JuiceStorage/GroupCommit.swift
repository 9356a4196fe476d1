import Dispatch
import JuiceCore
import JuiceDomain
import JuicePlatform
import JuiceLog

/// Group commit: the store appends records here; they go to the journal file in one write and
/// one fdatasync per group, on a thread of its own (`JournalThread`), so the loop never blocks
/// on the disk.
///
/// One write is in flight at a time: records that arrive while it runs wait in `pending`, and
/// the next write carries all of them. Overlapping syncs make each group smaller, and the disk
/// then spends its time on more, smaller syncs; one at a time gives the biggest groups and the
/// most orders a second (README, Performance: "Design choices, measured").
///
/// A group is `pwrite`n and synced in one job on `thread` (serial: records land in order, and a
/// growth or a compaction queues behind the writes handed over before it), then reported on the
/// loop once, durable: one hop there and one back per group. A failed sync stops the server
/// (`StorageError.stopServer`, exit 3). A
/// lack of room does not: the file is grown ahead of need, and while that fails the store is
/// read-only (`refusal`, see `JournalRoom`), retrying every second.
///
/// Everything here but the journal thread's jobs runs on the loop (`loop`), where the store calls
/// it; it is made there too.
package final class GroupCommit: ChangeJournal {
    // Loop-confined, not Sendable: the journal thread's jobs get only what is Sendable (the
    // file, the thread, copies of values) and report back on the loop, carrying the group
    // commit in a `LoopBound`, which is read only there.
    private let file: JournalFile
    private let snapshotPath: String
    private let directory: String
    private let loop: DispatchQueue
    private let thread = JournalThread(name: "juice-journal")

    /// The position of the last record appended, of the last one handed to the journal thread,
    /// and of the last one on disk.
    package var lastLSN: UInt64 { appendedLSN }
    /// (Internal, not `package`: a stored field other modules could reach keeps a run-time
    /// exclusivity check at each access, two an order here.)
    private var appendedLSN: UInt64
    private var handedLSN: UInt64
    package private(set) var durableLSN: UInt64
    /// Records framed since the last write was handed over (the last one starting at
    /// `pendingLast`), and whether a write is under way.
    private var pending: [UInt8] = []
    private var pendingLast = 0
    /// Where each record's payload is built before it is framed into `pending` (kept: no
    /// allocation per record).
    private var payloadScratch: [UInt8] = []
    /// The snapshot's hour records from the last compaction: the next frames only those that changed.
    private let hourRecords = HourRecordCache()
    private var writing = false
    /// Told (on the loop) each time a write is durable, with the position now durable: the
    /// durability gate, wired by `Server.start`, releases what waited for it.
    package weak var durabilityListener: (any DurabilityListener)?
    /// The journal's free preallocated room, and whether the store is read-only.
    private var room: JournalRoom

    /// Bytes handed to the journal since the last compaction started a new one (the store
    /// compacts past a limit).
    package private(set) var journalBytes: Int
    private var compacting = false
    /// After a compaction that found no room: not again before this (uptime ns), and logged once.
    private var compactNotBefore: UInt64 = 0
    private var compactionFailing = false
    /// Writes (each one fdatasync) and the records they carried, for STATS and `/metrics`.
    package private(set) var counts = JournalCounts.zero

    /// Over a journal that holds `journalBytes` of good records up to position `lsn`. It grows
    /// the file here, at start, so the first change finds room; on a full disk it starts
    /// read-only (and retries). `recordBound` is the biggest record a change can write. Made on
    /// the loop (`loop.sync` before it runs anything else will do).
    package init(file: JournalFile, snapshotPath: String, directory: String, lsn: UInt64, journalBytes: Int,
         recordBound: Int = 4096, loop: DispatchQueue) throws(StorageError) {
        dispatchPrecondition(condition: .onQueue(loop))
        self.file = file
        self.snapshotPath = snapshotPath
        self.directory = directory
        self.loop = loop
        appendedLSN = lsn
        handedLSN = lsn
        durableLSN = lsn
        self.journalBytes = journalBytes
        var failure: StorageError?
        do { try file.grow(leaving: JournalFile.chunk) } catch {
            guard error.isOutOfRoom else { throw error }
            failure = error
        }
        room = JournalRoom(recordBound: recordBound, free: file.free)
        if let failure { grown(failure: failure) }
    }

    /// Nil if a change may be applied now, else why not (`ERR READ_ONLY <reason>`). The store
    /// asks before each change: a change is applied only if its record has room.
    package func refusal() -> JournalRoom.Refusal? { room.refusal() }

    /// Why the store is read-only (nil: it is not), for `/healthz`, `/state` and `/metrics`.
    package var readOnly: String? { room.readOnly }

    /// Appends the record `make` builds for the next journal position, and returns that position.
    /// It goes out with the next `flush`.
    @discardableResult
    package func append(_ make: (_ lsn: UInt64) -> JournalRecord) -> UInt64 {
        appendedLSN += 1
        let before = pending.count
        make(appendedLSN).appendFramed(to: &pending, scratch: &payloadScratch)
        pendingLast = before
        room.append(pending.count - before)
        return appendedLSN
    }

    /// Hands everything appended so far to the journal thread, unless a write is already under
    /// way: then it waits, and the next write carries every record that arrived meanwhile.
    package func flush() {
        defer { growIfDue() }
        guard !writing, !pending.isEmpty else { return }
        writing = true
        let bytes = pending, last = pendingLast
        pending = []
        journalBytes += bytes.count
        let upTo = appendedLSN
        counts.syncs += 1
        counts.records += upTo - handedLSN
        handedLSN = upTo
        room.handOver(bytes.count)
        let mark = room.handed
        thread.async { [file, thread, back = LoopBound(self, on: loop)] in
            GroupCommit.write(bytes, lastRecord: last, upTo: upTo, mark: mark, to: file, on: thread, reportingTo: back)
        }
    }

    /// On the journal thread: writes the group and syncs it. The records land in preallocated
    /// room, so the write fails for lack of room only where growing did not reserve it (a
    /// copy-on-write file system; a compaction's regrowth that failed). Their changes are applied
    /// and their replies held: it retries every second, and the store is read-only meanwhile.
    /// The room the write left is reported with the durability, in the one hop back to the loop.
    private static func write(_ bytes: [UInt8], lastRecord: Int, upTo lsn: UInt64, mark: Int, to file: JournalFile, on thread: JournalThread,
                              reportingTo journal: LoopBound<GroupCommit>) {
        do throws(StorageError) { try file.append(bytes, lastRecord: lastRecord) } catch {
            guard error.isOutOfRoom else { error.stopServer() }
            let reason = error.readOnlyReason("cannot write the journal")
            journal.async { $0.log($0.room.writeFailed(reason)) }
            thread.async(after: 1) { write(bytes, lastRecord: lastRecord, upTo: lsn, mark: mark, to: file, on: thread, reportingTo: journal) }
            return
        }
        let free = file.free
        JournalTestHook.beforeSync()
        do throws(StorageError) { try file.sync() } catch { error.stopServer() }
        JournalTestHook.afterSync()
        journal.async { $0.written(upTo: lsn, mark: mark, free: free) }
    }

    /// Back on the loop: the group is durable up to `lsn`, and the file had `free` bytes left.
    private func written(upTo lsn: UInt64, mark: Int, free: Int) {
        room.reported(mark: mark, free: free)
        // A line only when the store leaves read-only (`log` is not called for nothing).
        if let line = room.wrote() { log(line) }
        writing = false
        flush()
        durableLSN = lsn
        durabilityListener?.durable(upTo: lsn)
    }

    // MARK: - Growing ahead of need

    private func growIfDue() {
        if let wanted = room.growthDue() { grow(leaving: wanted) }
    }

    private func grow(leaving wanted: Int) {
        room.growing = true
        let mark = room.handed
        thread.async { [file, back = LoopBound(self, on: loop)] in
            let failure = GroupCommit.grow(file, leaving: wanted)
            let free = file.free
            back.async {
                $0.room.growing = false
                $0.room.reported(mark: mark, free: free)
                $0.grown(failure: failure)
            }
        }
    }

    /// On the journal thread: grows the file, and returns the failure if it found no room (any other
    /// failure is fatal).
    private static func grow(_ file: JournalFile, leaving room: Int) -> StorageError? {
        do throws(StorageError) { try file.grow(leaving: room) } catch {
            guard error.isOutOfRoom else { error.stopServer() }
            return error
        }
        return nil
    }

    /// A growth finished (or failed for lack of room: then the store is read-only and it is
    /// tried again in a second, until it succeeds).
    private func grown(failure: StorageError?) {
        if let failure {
            log(room.growthFailed(failure.readOnlyReason("cannot grow the journal")))
            loop.asyncAfter(deadline: .now() + .seconds(1)) { [back = LoopBound(self, on: loop)] in back.value.retryGrowth() }
        } else {
            log(room.grew())
            growIfDue()
        }
    }

    private func retryGrowth() {
        guard room.growthFailure != nil, !room.growing else { return }
        grow(leaving: room.growthRoom)
    }

    /// One line on going read-only (an error: someone must free room), one on recovering.
    private func log(_ line: String?) {
        guard let line else { return }
        if room.readOnly != nil { Log.error(line) } else { Log.lifecycle(line) }
    }

    // MARK: - Compaction

    /// Whether a compaction may start now: none is under way, and none found no room in the
    /// last 5 s. When to compact is the store's call (`FruitStore`, past `--journal-max-bytes`).
    package var canCompact: Bool {
        !compacting && DispatchTime.now().uptimeNanoseconds >= compactNotBefore
    }

    /// Makes `ledger`, the state at the last record appended, the snapshot, and starts a new
    /// journal (`JournalFile.rotate`: a new file, beginning with a copy of the old one's last
    /// record, renamed over it). The snapshot is encoded here, on the loop (its cost grows with
    /// the remembered keys, up to `Limits.rememberedKeys` `K` records, once per compaction); the
    /// disk work runs on the journal thread, queued behind every write handed over before it.
    /// Records still pending (a write was in flight) are in the snapshot too, and are written to
    /// the new journal: replay skips a record the snapshot already holds, so that, like a crash
    /// in between, is harmless. A snapshot or a new journal that finds no room skips the
    /// compaction (the old journal stays in use, whole) and it may be tried again 5 s later.
    ///
    /// The order is what makes a crash at any point harmless and a copy of the folder taken
    /// while it runs complete or refused (README, Backups): the snapshot is durable before the
    /// new journal replaces the old one, and the new journal is never empty, so an older
    /// snapshot paired with it shows the records it lacks as missing.
    package func compact(_ ledger: StockLedger) {
        guard canCompact else { return }
        compacting = true
        let snapshot = Snapshot.encode(ledger, lsn: lastLSN, hours: hourRecords)
        let covered = journalBytes
        let seq = ledger.seq
        let mark = room.handed
        thread.async { [file, snapshotPath, directory, back = LoopBound(self, on: loop)] in
            do throws(StorageError) {
                try Snapshot.write(snapshot, to: snapshotPath, directory: directory)
            } catch {
                guard error.isOutOfRoom else { StorageError.compaction(error).stopServer() }
                back.async { $0.compactionSkipped(error, "cannot write the snapshot") }
                return
            }
            JournalTestHook.rotation("snapshot")
            do throws(StorageError) { _ = try file.rotate() } catch {
                // The new snapshot stays: with the old journal it is what an interrupted
                // compaction leaves, and recovery skips the records it holds.
                guard error.isOutOfRoom else { StorageError.compaction(error).stopServer() }
                back.async { $0.compactionSkipped(error, "cannot start a new journal") }
                return
            }
            JournalTestHook.rotation("rotated")
            // The new journal has no preallocation yet: grow it to one chunk, as a new store's.
            let failure = GroupCommit.grow(file, leaving: JournalFile.chunk - file.length)
            let free = file.free
            back.async {
                $0.compacted(coveredBytes: covered, seq: seq, snapshotBytes: snapshot.count)
                $0.room.reported(mark: mark, free: free)
                $0.grown(failure: failure)
            }
        }
    }

    private func compacted(coveredBytes: Int, seq: UInt64, snapshotBytes: Int) {
        compacting = false
        compactionFailing = false
        journalBytes -= coveredBytes
        Log.info("compacted the journal: snapshot at seq=\(seq) (\(snapshotBytes) bytes), \(coveredBytes) journal bytes dropped")
    }

    private func compactionSkipped(_ error: StorageError, _ what: String) {
        compacting = false
        compactNotBefore = DispatchTime.now().uptimeNanoseconds + 5_000_000_000
        guard !compactionFailing else { return }
        compactionFailing = true
        Log.warning("compaction skipped: \(error.readOnlyReason(what)); the journal is kept whole, and compaction is retried every 5 s")
    }
}

import Dispatch
import JuiceCore
import JuiceDomain
import JuicePlatform
import JuiceLog

/// How much room the journal has for the next records, as the loop knows it: what lets the
/// store refuse a change *before* applying it when its record could not be written (a full disk:
/// PROTOCOL.md, "Full disk"). Loop-confined, like the store that asks it; pure bookkeeping, the
/// disk work is `GroupCommit`'s.
///
/// Why ahead of need: the journal file is preallocated (`JournalFile`), and growing it is the
/// only write that needs new room on the disk. So `GroupCommit` grows it on the journal thread
/// while `headroom` is still free, and each job there reports the preallocated bytes it left free
/// (`reported`). A change is applied only while at least `recordBound` (the biggest record the
/// menu allows) is free: its record then lands in space the disk already gave us. When growing
/// fails for lack of room the store is read-only until a retry succeeds.
///
/// The journal thread runs behind the loop: a report says what was free after the records handed
/// over before its job (`mark`, counted in bytes appended since start); every byte appended after
/// those comes off it. Reports arrive in the journal thread's order, so the last one is the truth,
/// whether a compaction replaced the file with a new one meanwhile or not.
package struct JournalRoom {
    /// Start growing when less than this is free: far more than a busy shop appends while one
    /// chunk is written, so a change never waits for room that is merely late.
    package static let headroom = JournalFile.chunk / 2

    /// The biggest framed record a change can write (`JournalRecord.maxBytes(under:)`).
    package let recordBound: Int
    /// Bytes appended since start (handed to the journal thread or still pending), and of those
    /// the ones handed over.
    package private(set) var appended = 0
    package private(set) var handed = 0
    /// The last report: free bytes after the first `mark` appended bytes were written.
    private var reportedFree: Int
    private var reportedMark = 0
    /// A growth is queued on the journal thread and has not reported yet.
    package var growing = false
    /// Why the journal has no room (nil: it has): a growth that failed, and a record write that
    /// failed (which `GroupCommit` retries by itself).
    package private(set) var growthFailure: String?
    package private(set) var writeFailure: String?
    /// Changes refused while read-only, and since when (uptime ns), for the recovery log line.
    package private(set) var refused = 0
    private var since: UInt64 = 0

    package init(recordBound: Int, free: Int) {
        self.recordBound = recordBound
        reportedFree = free
    }

    /// Preallocated bytes still free after everything appended.
    package var free: Int { reportedFree - (appended - reportedMark) }

    /// Why the store is read-only now, or nil.
    package var readOnly: String? { growthFailure ?? writeFailure }

    /// Why a change may not be applied now: the disk is full (or read-only), `ERR READ_ONLY
    /// <reason>` until it has room again; or a burst appended the headroom before one growth
    /// was written, a moment's wait and not a full disk (`ERR BUSY`, which a till retries with
    /// the same key; not logged).
    package typealias Refusal = WriteOutcome.Unavailable

    /// Nil if a change may be applied now; else why not.
    package mutating func refusal() -> Refusal? {
        if let readOnly {
            refused += 1
            return .readOnly(reason: readOnly)
        }
        return free < recordBound ? .journalGrowing : nil
    }

    package mutating func append(_ bytes: Int) { appended += bytes }
    package mutating func handOver(_ bytes: Int) { handed += bytes }

    /// A journal-thread job that started after the first `mark` bytes were handed over left
    /// `free` bytes preallocated after the last record.
    package mutating func reported(mark: Int, free: Int) {
        reportedMark = mark
        reportedFree = free
    }

    /// How much room a growth queued now should leave, or nil if none is due.
    package func growthDue() -> Int? {
        guard !growing, growthFailure == nil, free < JournalRoom.headroom else { return nil }
        return growthRoom
    }

    /// The room a growth asks for: a chunk beyond what is appended but not handed over yet.
    package var growthRoom: Int { JournalFile.chunk + (appended - handed) }

    // Outcomes of the journal thread's work. Each returns the log line the change of state calls
    // for: one on going read-only, one on recovering, none otherwise (not one per refusal).
    package mutating func growthFailed(_ reason: String) -> String? { transition { $0.growthFailure = reason } }
    package mutating func grew() -> String? { transition { $0.growthFailure = nil } }
    package mutating func writeFailed(_ reason: String) -> String? { transition { $0.writeFailure = reason } }
    package mutating func wrote() -> String? { writeFailure == nil ? nil : transition { $0.writeFailure = nil } }

    private mutating func transition(_ change: (inout JournalRoom) -> Void) -> String? {
        let before = readOnly
        change(&self)
        switch (before, readOnly) {
        case (nil, let reason?):
            since = DispatchTime.now().uptimeNanoseconds
            refused = 0
            return "read-only: \(reason); ORDER, RESTOCK and SET are refused until there is room (retrying every second)"
        case (_?, nil):
            let seconds = (DispatchTime.now().uptimeNanoseconds - since) / 1_000_000_000
            return "writable again: the journal has room (read-only for \(seconds) s, \(refused) changes refused)"
        default:
            return nil
        }
    }
}

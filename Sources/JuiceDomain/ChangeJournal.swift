import JuiceCore
import JuicePlatform
import JuiceLog

/// Where the store's changes are kept (the journal's group commit, in JuiceStorage). The store
/// decides what is recorded and when to compact; the journal how, and when it is on disk. A
/// protocol, so the domain names no file and no thread. It runs on the loop with the store (not
/// Sendable: the store holds it as its own state).
package protocol ChangeJournal: AnyObject {
    /// The position of the last record appended, and of the last one on disk.
    var lastLSN: UInt64 { get }
    var durableLSN: UInt64 { get }
    /// The journal's size since its last compaction.
    var journalBytes: Int { get }
    /// Records and bytes written, syncs (for STATS and /metrics).
    var counts: JournalCounts { get }
    /// Told (on the loop) each time a write is durable, with the position now durable.
    var whenDurable: ((UInt64) -> Void)? { get set }
    /// Why no change is taken now (a full disk), or nil.
    var readOnly: String? { get }
    /// Whether a compaction may start now (none running, none refused a moment ago).
    var canCompact: Bool { get }
    /// Why the journal cannot take a change's record now, or nil.
    func refusal() -> JournalRefusal?
    /// Appends the record `make` builds for the next position.
    func append(_ make: (_ lsn: UInt64) -> JournalRecord)
    /// Hands what was appended to the disk (the group commit's write).
    func flush()
    /// Writes `ledger` as the snapshot and starts the journal afresh.
    func compact(_ ledger: StockLedger)
}

/// Why the journal cannot take a record now.
package enum JournalRefusal: Equatable {
    /// The disk is full (or read-only): `ERR READ_ONLY <reason>`, until it has room again.
    case readOnly(String)
    /// A burst appended the headroom before one growth was written: a moment's wait, not a
    /// full disk (`ERR BUSY`, which a till retries with the same key). Not logged.
    case growing
}

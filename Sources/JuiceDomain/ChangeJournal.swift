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
    /// Told (on the loop) each time a write is durable, with the position now durable. Held
    /// weakly: the journal may outlive the server that listens.
    var durabilityListener: (any DurabilityListener)? { get set }
    /// Why no change is taken now (a full disk), or nil.
    var readOnly: String? { get }
    /// Whether a compaction may start now (none running, none refused a moment ago).
    var canCompact: Bool { get }
    /// Why the journal cannot take a change's record now (a full disk, a file still growing), or
    /// nil. Asked before the change is applied, so a refused change takes nothing, no seq, no
    /// key, and counts in no sales (PROTOCOL.md, "Full disk").
    func refusal() -> WriteOutcome.Unavailable?
    /// Appends the record `make` builds for the next position, and returns that position.
    @discardableResult func append(_ make: (_ lsn: UInt64) -> JournalRecord) -> UInt64
    /// Hands what was appended to the disk (the group commit's write).
    func flush()
    /// Writes `ledger` as the snapshot and starts a new journal.
    func compact(_ ledger: StockLedger)
}

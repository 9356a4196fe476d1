import JuiceCore
import JuicePlatform

extension FruitStore {
    /// A backup of the whole state as of now (`GET /backup`): the bytes, the journal position they
    /// hold (the answer waits until the journal is durable up to it, so every change acknowledged
    /// before the request is in it), and the shop's date for the file's name. Encoded in this one
    /// call on the loop, as a compaction encodes its snapshot: no change can fall between.
    /// A store in memory has one too (its lsn is 0). Nil for a store made without an encoder.
    /// A durable store's backup is kept until the journal moves (every change and every kept
    /// refusal is a record, so an unmoved journal is an unchanged store): asked again, as a
    /// retrying script or a repeated request does, it is answered without encoding the whole
    /// store again. A store in memory has no journal position to tell, so it encodes each time.
    package func backup() -> (bytes: [UInt8], lsn: UInt64, day: Int32)? {
        guard let backupEncoder else { return nil }
        let lsn = lastLSN
        if journal != nil, let kept = lastBackup, kept.lsn == lsn { return (kept.bytes, lsn, today) }
        // As a report computed: the loop ends this connection's turn after it (`FairTurn`).
        work.countExpensive()
        let bytes = backupEncoder(ledger, lsn, wallClock())
        if journal != nil { lastBackup = (lsn, bytes) }
        return (bytes, lsn, today)
    }
}

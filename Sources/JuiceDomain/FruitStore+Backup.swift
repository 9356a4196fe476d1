import JuiceCore
import JuicePlatform

extension FruitStore {
    /// A backup of the whole state as of now (`GET /backup`): the bytes, the journal position they
    /// hold (the answer waits until the journal is durable up to it, so every change acknowledged
    /// before the request is in it), and the shop's date for the file's name. Encoded in this one
    /// call on the loop, as a compaction encodes its snapshot: no change can fall between.
    /// A store in memory has one too (its lsn is 0). Nil for a store made without an encoder.
    package func backup() -> (bytes: [UInt8], lsn: UInt64, day: Int32)? {
        guard let backupEncoder else { return nil }
        // As a report computed: the loop ends this connection's turn after it (`FairTurn`).
        work.countExpensive()
        return (backupEncoder(ledger, lastLSN, wallClock()), lastLSN, today)
    }
}

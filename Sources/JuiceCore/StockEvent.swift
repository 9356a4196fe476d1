/// A stock change on its way to the displays, as values: each protocol words it its own way
/// (`ServedProtocol.appendEvent`), once per broadcast. `lsn` is the journal position that
/// must be durable before it is sent.
package struct StockEvent: Sendable {
    package let seq: UInt64
    package let lsn: UInt64
    /// The fruits the change touched, with their new values (the change's own array).
    package let touched: [FruitValue]

    package init(_ change: Change, lsn: UInt64) {
        seq = change.seq
        self.lsn = lsn
        touched = change.touched
    }
}

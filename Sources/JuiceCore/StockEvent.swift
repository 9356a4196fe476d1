/// A stock change on its way to the displays, as values: each protocol words it its own way
/// (`ServedProtocol.appendEvent`), once per broadcast. `lsn` is the journal position that
/// must be durable before it is sent. (Inlinable: see `FruitValue`.)
@usableFromInline package struct StockEvent: Sendable {
    @usableFromInline package let seq: UInt64
    @usableFromInline package let lsn: UInt64
    /// The fruits the change touched, with their new values (the change's own array).
    @usableFromInline package let touched: [FruitValue]

    @inlinable package init(_ change: Change, lsn: UInt64) {
        seq = change.seq
        self.lsn = lsn
        touched = change.touched
    }
}

/// Who the journal tells, on the loop, each time a write is durable, with the position now
/// durable (the server's durability gate, which releases what waited for it). The journal is
/// the store's and the gate the loop's, and neither module knows the other: each knows this.
package protocol DurabilityListener: AnyObject {
    func durable(upTo lsn: UInt64)
}

/// A fruit and its stock after a change.
///
/// This, `Change` and `StockEvent` are made for every order, in other modules (the ledger, the
/// store): their initializers are inlinable, which a `package` type's members are only with
/// `@usableFromInline` on the type and the fields they touch. An opaque call each (and a copy
/// of the change for `StockEvent`) showed in S2's profile.
@usableFromInline package struct FruitValue: Sendable, Equatable {
    @usableFromInline package let fruit: Int
    @usableFromInline package let value: Int
    @inlinable package init(fruit: Int, value: Int) {
        self.fruit = fruit
        self.value = value
    }
}

/// One applied change: what the journal records, the reply reports and the event broadcasts.
@usableFromInline package struct Change: Sendable, Equatable {
    @usableFromInline package enum Kind: Sendable, Equatable {
        case order(OrderRequest)
        /// A keyed one carries its key, for the journal.
        case restock(fruit: Int, amount: Int, key: String? = nil)
        case set(fruit: Int, amount: Int, key: String? = nil)
    }
    @usableFromInline package let seq: UInt64
    @usableFromInline package let kind: Kind
    /// The fruits the change touched, with their new values, in recipe order for an order.
    @usableFromInline package let touched: [FruitValue]

    @inlinable package init(seq: UInt64, kind: Kind, touched: [FruitValue]) {
        self.seq = seq
        self.kind = kind
        self.touched = touched
    }
}

/// A fruit and its stock after a change.
package struct FruitValue: Sendable, Equatable {
    package let fruit: Int
    package let value: Int
    package init(fruit: Int, value: Int) {
        self.fruit = fruit
        self.value = value
    }
}

/// One applied change: what the journal records, the reply reports and the event broadcasts.
package struct Change: Sendable, Equatable {
    package enum Kind: Sendable, Equatable {
        case order(OrderRequest)
        /// A keyed one carries its key, for the journal.
        case restock(fruit: Int, amount: Int, key: String? = nil)
        case set(fruit: Int, amount: Int, key: String? = nil)
    }
    package let seq: UInt64
    package let kind: Kind
    /// The fruits the change touched, with their new values, in recipe order for an order.
    package let touched: [FruitValue]

    package init(seq: UInt64, kind: Kind, touched: [FruitValue]) {
        self.seq = seq
        self.kind = kind
        self.touched = touched
    }
}

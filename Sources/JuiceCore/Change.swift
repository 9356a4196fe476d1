/// A fruit and its stock after a change.
///
/// This, `Change` and `StockEvent` are made for every order, in other modules (the ledger, the
/// store): their initializers are inlinable, which a `package` type's members are only with
/// `@usableFromInline` on the type and the fields they touch. An opaque call each (and a copy
/// of the change for `StockEvent`) showed in S2's profile.
@usableFromInline package struct FruitValue: Sendable, Equatable {
    @usableFromInline package let fruit: Int
    @usableFromInline package let value: Int
    @inlinable package init(fruit: Int, value: Int) { (self.fruit, self.value) = (fruit, value) }
}

/// One applied change: what the journal records, the reply reports and the event broadcasts.
@usableFromInline package struct Change: Sendable, Equatable {
    @usableFromInline package enum Kind: Sendable, Equatable {
        case order(OrderRequest)
        /// A keyed one carries its key, for the journal.
        case restock(fruit: Int, amount: Int, key: String? = nil)
        case set(fruit: Int, amount: Int, key: String? = nil)
        /// A sale voided: `juice` and `count` are the sale's, and its fruit went back.
        case void(VoidRequest, juice: Int, count: Int)
    }
    @usableFromInline package let seq: UInt64
    @usableFromInline package let kind: Kind
    /// The fruits the change touched, with their new values, in recipe order for an order.
    @usableFromInline package let touched: [FruitValue]
    /// Money, in minor units of the menu's currency: a sale's amount, as priced when it was
    /// made, or the amount a void gave back. Nil without prices (and for RESTOCK and SET).
    @usableFromInline package let amount: Int?
    /// For a sale as its key remembers it: the seq of the void that undid it, if one did (a
    /// retry of the sale's key then says so). Nil on every change as it is applied.
    @usableFromInline package var voidedBy: UInt64?

    @inlinable package init(seq: UInt64, kind: Kind, touched: [FruitValue], amount: Int? = nil, voidedBy: UInt64? = nil) {
        self.seq = seq
        self.kind = kind
        self.touched = touched
        self.amount = amount
        self.voidedBy = voidedBy
    }
}

/// Why a sale was voided: a short list, as a POS till asks (PROTOCOL.md, "VOID"). Public: a
/// client names it when it voids (`JuiceClient.void(sale:reason:key:)`).
public enum VoidReason: String, Sendable, Equatable, CaseIterable {
    case wrongJuice = "wrong-juice", customerLeft = "customer-left", other = "other"
}

/// `VOID <sale seq> <reason> [key=<token>]`: undo one sale of today's business day.
/// `@usableFromInline`: `Change.Kind` carries it (see `FruitValue`).
@usableFromInline package struct VoidRequest: Sendable, Equatable {
    /// The seq of the sale's change (its `OK ORDER ... seq=<n>`).
    @usableFromInline package let sale: UInt64
    @usableFromInline package let reason: VoidReason
    @usableFromInline package let key: String?

    @inlinable package init(sale: UInt64, reason: VoidReason, key: String? = nil) { (self.sale, self.reason, self.key) = (sale, reason, key) }
}

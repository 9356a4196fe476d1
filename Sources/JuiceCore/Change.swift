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
        /// A sale voided: `juice` and `count` are the sale's, and its fruit went back.
        case void(VoidRequest, juice: Int, count: Int)
    }
    package let seq: UInt64
    package let kind: Kind
    /// The fruits the change touched, with their new values, in recipe order for an order.
    package let touched: [FruitValue]
    /// Money, in minor units of the menu's currency: a sale's amount, as priced when it was
    /// made, or the amount a void gave back. Nil without prices (and for RESTOCK and SET).
    package let amount: Int?
    /// For a sale as its key remembers it: the seq of the void that undid it, if one did (a
    /// retry of the sale's key then says so). Nil on every change as it is applied.
    package var voidedBy: UInt64?

    package init(seq: UInt64, kind: Kind, touched: [FruitValue], amount: Int? = nil, voidedBy: UInt64? = nil) {
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
package struct VoidRequest: Sendable, Equatable {
    /// The seq of the sale's change (its `OK ORDER ... seq=<n>`).
    package let sale: UInt64
    package let reason: VoidReason
    package let key: String?

    package init(sale: UInt64, reason: VoidReason, key: String? = nil) {
        self.sale = sale
        self.reason = reason
        self.key = key
    }
}

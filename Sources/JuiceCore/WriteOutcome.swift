/// What became of a write (ORDER, RESTOCK, SET), as values: the store's answer before any
/// protocol puts it into words. The line protocol writes it as a reply line (`Wire`), HTTP as
/// JSON, and the key memory keeps it, so a retry gets the same answer in whichever protocol
/// it comes back by.
package enum WriteOutcome: Sendable, Equatable {
    /// Applied: its seq and the stock it left (the fruits it touched, with their new values).
    case applied(Change)
    /// An order the stock cannot fill; `have` is the stock of each recipe fruit then, in recipe
    /// order (`Int.max` for one a recorded refusal does not list).
    case outOfStock(OrderRequest, have: [Int])
    /// A RESTOCK that would take a fruit past `Limits.maxStock`.
    case overLimit(fruit: Int, stock: Int, adding: Int)
    /// A retry of a key the store holds: the first outcome (applied, or out of stock), again.
    indirect case duplicate(of: WriteOutcome)
    /// The key was first used for another request.
    case keyReused(key: String, first: KeyRequest)
    /// Nothing was applied, and the same write may simply come back later.
    case unavailable(Unavailable)
    /// The till that sent it was revoked: nothing is applied, from it, ever again.
    case tillRevoked
    /// A VOID the store does not apply: nothing changes, and it is not remembered under its key
    /// (a retry is judged afresh, as an `OVER_LIMIT` RESTOCK's is).
    case voidRefused(VoidRefusal)

    /// Why a sale cannot be voided.
    package enum VoidRefusal: Sendable, Equatable {
        /// No sale of today's business day has that seq (a sale of another day, a RESTOCK's seq,
        /// or a seq not yet given).
        case noSuchSale(UInt64)
        /// Voided already, by the void at `by`.
        case alreadyVoided(sale: UInt64, by: UInt64)
        /// Another till's sale: a till voids only its own.
        case notYours(sale: UInt64)
        /// A till's own sale, but older than the till's window (`seconds`): the manager's job now.
        case windowPassed(sale: UInt64, seconds: Int)
        /// Giving the fruit back would take it past `Limits.maxStock`.
        case overLimit(sale: UInt64, fruit: Int)
    }

    /// Why a write could not be taken now: the server's state, not the write's fault.
    package enum Unavailable: Sendable, Equatable {
        /// The key memory has no room for a new key (`KeyMemory.admit`).
        case keyMemoryFull(KeyRefusal)
        /// The journal has no room for the record (a full disk): `reason` says what failed.
        case readOnly(reason: String)
        /// The journal is growing its file: a moment, not a full disk.
        case journalGrowing
    }

    /// Whether it changed the stock (a first application, not a retry's repeat).
    package var change: Change? {
        if case .applied(let change) = self { return change }
        return nil
    }

    /// What a key that keeps this outcome was used for: the write an applied change or an order
    /// out of stock answers; nil for an outcome no key keeps.
    package var remembered: KeyRequest? {
        switch self {
        case .applied(let change):
            switch change.kind {
            case .order(let request): return .order(juice: request.juice, count: request.count)
            case .restock(let fruit, let amount, _): return .restock(fruit: fruit, amount: amount)
            case .set(let fruit, let amount, _): return .set(fruit: fruit, amount: amount)
            case .void(let request, _, _): return .void(sale: request.sale, reason: request.reason)
            }
        case .outOfStock(let request, _):
            return .order(juice: request.juice, count: request.count)
        case .overLimit, .duplicate, .keyReused, .unavailable, .tillRevoked, .voidRefused:
            return nil
        }
    }
}

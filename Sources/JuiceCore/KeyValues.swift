/// The values of the server's key memory (`KeyMemory`, in JuiceDomain) that replies and write
/// outcomes name: where a key lives, what it was first used for, why a new one does not fit.
/// Here, below the domain, so the line codec can word them without the memory itself.

/// Where a key lives.
package enum KeyScope: Sendable, Hashable {
    /// The anonymous writers' namespace, counted against `address` (nil: a key recovered
    /// from a record that does not say whose it was).
    case shared(address: String?)
    /// A till's or the manager's namespace ("till:3", "manager").
    case own(String)

    /// The key as the memory holds it: a shared key as it is, an own one behind its
    /// namespace and a space (which no key or namespace contains).
    package func stored(_ key: String) -> String {
        switch self {
        case .shared: return key
        case .own(let name): return name + " " + key
        }
    }

    /// Whose share the key counts against: an address, or a namespace behind `#` (which
    /// no address group contains).
    package var owner: String? {
        switch self {
        case .shared(let address): return address
        case .own(let name): return "#" + name
        }
    }

    package var isOwn: Bool {
        if case .own = self { return true }
        return false
    }
}

/// What a key was first used for: a retry must ask for the same thing, or it is KEY_REUSED.
package enum KeyRequest: Sendable, Equatable {
    case order(juice: Int, count: Int)
    case restock(fruit: Int, amount: Int)
    case set(fruit: Int, amount: Int)
    case void(sale: UInt64, reason: VoidReason)
}

/// Why a new key does not fit now.
package enum KeyRefusal: Sendable, Equatable {
    /// The address holds its whole share.
    case addressFull(retryAfterSeconds: Int)
    /// The whole memory is full of young keys.
    case full(retryAfterSeconds: Int)

    package var retryAfterSeconds: Int {
        switch self {
        case .addressFull(let s), .full(let s): return s
        }
    }
}

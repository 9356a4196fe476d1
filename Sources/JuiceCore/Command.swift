/// A parsed request line. Names are already resolved to menu indices and numbers range-checked,
/// so executing a command never has to re-validate its arguments.
package enum Command: Sendable, Equatable {
    case help
    case ping
    case menu
    case menuAliases
    /// `MENU PRICES`: the currency and each juice's price.
    case menuPrices
    case stock(fruit: Int?)
    case order(OrderRequest)
    /// `RESTOCK <fruit> <amount> [key=<token>]`
    case restock(fruit: Int, amount: Int, key: String? = nil)
    /// `SET <fruit> <amount> [key=<token>]`
    case set(fruit: Int, amount: Int, key: String? = nil)
    /// `VOID <sale seq> <reason> [key=<token>]`
    case void(VoidRequest)
    case events(on: Bool)
    case stats
    /// `REPORT [YYYY-MM-DD]`: one business day's figures (nil: today).
    case report(day: Int32?)
    /// `SINCE <seq> [store=<id>]`: `store` is the store the client's seq belongs to (from the
    /// `EVENT HELLO` it last saw); another store's seq means nothing here (a full state instead).
    case since(UInt64, store: String? = nil)
    case auth(token: [UInt8])
    /// `TILL <credential>`: this connection is a paired till from now on.
    case till(credential: String)
    /// `PAIR <code>`: pairs this device as a till with the manager's code.
    case pair(code: String)
    /// `TILLS ...`: the manager's list of tills and its changes.
    case tills(TillsRequest)
    case quit

    /// The part of it the store answers (a read, a write, a catch-up, the tills), or nil for
    /// one the connection answers itself (HELP, PING, MENU, EVENTS, AUTH, TILL, QUIT).
    package var storeCommand: StoreCommand? {
        switch self {
        case .stock(let fruit): return .stock(fruit: fruit)
        case .order(let request): return .order(request)
        case .restock(let fruit, let amount, let key): return .restock(fruit: fruit, amount: amount, key: key)
        case .set(let fruit, let amount, let key): return .set(fruit: fruit, amount: amount, key: key)
        case .void(let request): return .void(request)
        case .since(let after, let store): return .since(after, store: store)
        case .stats: return .stats
        case .report(let day): return .report(day: day)
        case .pair(let code): return .pair(code: code)
        case .tills(let request): return .tills(request)
        case .help, .ping, .menu, .menuAliases, .menuPrices, .events, .auth, .till, .quit: return nil
        }
    }
}

/// The store's language: what `FruitStore.run` takes, and all it takes. The line protocol's
/// parser makes it from a line (`Command.storeCommand`); HTTP and other codecs make it from
/// their own requests. A session's own verbs (AUTH, EVENTS, QUIT, ...) are not in it, so the
/// store cannot be handed one.
package enum StoreCommand: Sendable, Equatable {
    case stock(fruit: Int?)
    case order(OrderRequest)
    case restock(fruit: Int, amount: Int, key: String? = nil)
    case set(fruit: Int, amount: Int, key: String? = nil)
    case void(VoidRequest)
    case since(UInt64, store: String? = nil)
    case stats
    case report(day: Int32?)
    case pair(code: String)
    case tills(TillsRequest)

    /// The idempotency key of a write, if it carries one.
    package var key: String? {
        switch self {
        case .order(let request): return request.key
        case .restock(_, _, let key), .set(_, _, let key): return key
        case .void(let request): return request.key
        default: return nil
        }
    }
}

/// `ORDER <juice> [count] [key=<token>]`. (`@usableFromInline`: a `Change.Kind` carries it.)
@usableFromInline package struct OrderRequest: Sendable, Equatable {
    package let juice: Int
    package let count: Int
    /// The idempotency key, if the cashier sent one.
    package let key: String?

    package init(juice: Int, count: Int, key: String? = nil) {
        self.juice = juice
        self.count = count
        self.key = key
    }
}

/// The verbs, recognised before any argument is looked at: permission is checked on the verb,
/// so `RESTOCK durian -1` from a client that may not restock is FORBIDDEN, not BAD_ARGUMENT.
package enum Verb: String, Sendable, CaseIterable {
    case help = "HELP", ping = "PING", menu = "MENU", stock = "STOCK", order = "ORDER"
    case restock = "RESTOCK", set = "SET", events = "EVENTS", stats = "STATS", since = "SINCE"
    case report = "REPORT", auth = "AUTH", quit = "QUIT"
    case till = "TILL", pair = "PAIR", tills = "TILLS", void = "VOID"

    /// Changing stock by hand is the manager's job, and so are reading the day's sales and
    /// looking after the tills.
    package var needsManager: Bool { self == .restock || self == .set || self == .report || self == .tills }

    package static let folded: [(Verb, [UInt8])] = Verb.allCases.map { ($0, Array($0.rawValue.lowercased().utf8)) }
}

/// `TILLS` (the list), `TILLS NEW [name]`, `TILLS RENAME <till> <name>`, `TILLS REVOKE <till>`.
package enum TillsRequest: Sendable, Equatable {
    case list
    /// A pairing code, for a till to be called `name` (nil: "Till <n>").
    case newCode(name: String?)
    case rename(TillID, name: String)
    case revoke(TillID)
}

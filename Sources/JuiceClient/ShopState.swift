import JuiceCore

/// The shop as the server last reported it: its menu, the stock of every fruit, and the seq of
/// the last change that stock includes.
public struct ShopState: Sendable, Equatable {
    /// The server's menu (juices with recipes, fruits in menu order), read from `MENU`.
    public var menu: Menu
    /// Other names (e.g. Korean) of each fruit and juice, from `MENU ALIASES`.
    public var aliases: MenuAliases
    /// Fruit names in the server's order (that of `STOCK`).
    public var fruits: [String]
    public var stock: [String: Int]
    public var seq: Int

    public init(menu: Menu, aliases: MenuAliases, fruits: [String], stock: [String: Int], seq: Int) {
        self.menu = menu
        self.aliases = aliases
        self.fruits = fruits
        self.stock = stock
        self.seq = seq
    }

    /// Juice names in menu order.
    public var juices: [String] { menu.juices.map(\.name) }

    /// How many more of `juice` the stock can make (the rule the server's /state uses); 0 for a
    /// juice the menu does not have.
    public func canMake(_ juice: String) -> Int {
        guard let found = menu.juices.first(where: { $0.name == juice }) else { return 0 }
        return menu.canMake(found, stock: menu.fruits.map { stock[$0.name] ?? 0 })
    }

    /// `canMake` for every juice.
    public var canMake: [String: Int] {
        Dictionary(uniqueKeysWithValues: juices.map { ($0, canMake($0)) })
    }

    /// The stock as the protocol lists it, in fruit order.
    public var snapshot: StockUpdate {
        StockUpdate(seq: seq, values: fruits.map { ($0, stock[$0] ?? 0) })
    }
}

/// What an order came to. A refusal for stock is an answer, not an error: nothing was taken.
public enum OrderResult: Sendable, Equatable {
    /// Made: the change's `seq` (the sale's number: a void names it), what is left of each
    /// fruit the recipe used, and the sale's amount in minor units of the menu's currency, as
    /// priced when it was made (nil on a menu without prices; `Prices.format` shows it).
    case made(seq: Int, stock: [String: Int], amount: Int? = nil)
    /// Refused, nothing taken: what the order needed of each short fruit, and what there was.
    case outOfStock(needs: [String: Int], has: [String: Int])
}

/// One element of `JuiceClient.stock()`.
public enum ShopUpdate: Sendable, Equatable {
    /// The whole state. Always the first element of a stream; again, with `resync: true`, when the client
    /// could not resume with the changes it missed (the server restarted on another or a wiped
    /// store, its history no longer reaches back, or its menu changed): replace, do not merge.
    case full(ShopState, resync: Bool)
    /// One applied change, in seq order with no gap: the fruits it touched with their new values,
    /// and the whole state with it applied.
    case change(seq: Int, changed: [String: Int], state: ShopState)
    /// The connection was lost; the client is reconnecting (`attempt` counts the tries, and
    /// each failed one is reported). Never before the stream's first `.full`.
    case offline(attempt: Int, reason: String)
    /// Back in step after an `.offline`: what was missed follows as changes. Not sent for the
    /// first sync (the first `.full` says the server answered).
    case online
}

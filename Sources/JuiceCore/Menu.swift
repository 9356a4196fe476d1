/// A fruit the store keeps in stock. `aliases` are other names a client may use for it (e.g. Korean).
public struct Fruit: Sendable, Equatable {
    public let name: String
    public let aliases: [String]
    public init(name: String, aliases: [String] = []) { (self.name, self.aliases) = (name, aliases) }
}

/// One line of a recipe: `amount` of the fruit at index `fruit` of the menu's fruit list.
public struct Ingredient: Sendable, Equatable {
    public let fruit: Int
    public let amount: Int
    public init(fruit: Int, amount: Int) { (self.fruit, self.amount) = (fruit, amount) }
}

/// A juice on the menu and its recipe, in the order the reply and event list the fruits.
public struct Juice: Sendable, Equatable {
    public let name: String
    public let aliases: [String]
    public let recipe: [Ingredient]
    /// What one costs, in minor units of the menu's currency; nil on a menu without prices.
    public let price: Int?
    public init(name: String, aliases: [String] = [], recipe: [Ingredient], price: Int? = nil) {
        (self.name, self.aliases, self.recipe, self.price) = (name, aliases, recipe, price)
    }
}

/// What the stand sells: its fruits (in display order) and its juices with their recipes.
/// A menu is validated when it is built, so the rest of the code can trust every index in it.
public struct Menu: Sendable {
    public let fruits: [Fruit]
    public let juices: [Juice]
    /// Per-fruit stock for a brand-new store, when the menu file gives one.
    package let initialStock: [Int?]
    /// Per-fruit par level, when the menu file gives one: the count the shelf should hold at
    /// opening. The stock editor fills up to it and the board measures "low" against it; the
    /// store itself never acts on it, so a menu without par runs as before.
    package let par: [Int?]
    /// The currency of the juices' prices; nil on a menu without prices (then every price is
    /// nil, and replies, reports and pages leave money out).
    public let currency: Currency?
    package let fruitNames: NameTable
    package let juiceNames: NameTable
    /// The reply and event fragments of this menu, encoded once by `Wire` (see `WireFragments`).
    package let wire: WireFragments

    public init(fruits: [Fruit], juices: [Juice], initialStock: [Int?]? = nil, par: [Int?]? = nil,
                currency: Currency? = nil) throws(MenuError) {
        guard !fruits.isEmpty else { throw MenuError("the menu has no fruits") }
        guard !juices.isEmpty else { throw MenuError("the menu has no juices") }
        var fruitTable = NameTable()
        for (i, fruit) in fruits.enumerated() {
            for name in [fruit.name] + fruit.aliases {
                try Menu.checkName(name, what: "fruits[\(i)] \"\(fruit.name)\"")
                if let other = fruitTable.insert(name, index: i) {
                    throw MenuError("fruits[\(i)] \"\(fruit.name)\": the name \"\(name)\" is already used by fruit \"\(fruits[other].name)\"")
                }
            }
        }
        var juiceTable = NameTable()
        for (i, juice) in juices.enumerated() {
            let place = "juices[\(i)] \"\(juice.name)\""
            for name in [juice.name] + juice.aliases {
                try Menu.checkName(name, what: place)
                if let other = juiceTable.insert(name, index: i) {
                    throw MenuError("\(place): the name \"\(name)\" is already used by juice \"\(juices[other].name)\"")
                }
            }
            guard !juice.recipe.isEmpty else { throw MenuError("\(place): the recipe is empty") }
            var seen = Set<Int>()
            for ingredient in juice.recipe {
                guard fruits.indices.contains(ingredient.fruit) else {
                    throw MenuError("\(place): the recipe names a fruit that is not on the menu")
                }
                guard ingredient.amount >= 1, ingredient.amount <= Limits.maxStock else {
                    throw MenuError("\(place): the amount of \(fruits[ingredient.fruit].name) must be 1 to \(Limits.maxStock), not \(ingredient.amount)")
                }
                guard seen.insert(ingredient.fruit).inserted else {
                    throw MenuError("\(place): the recipe lists \(fruits[ingredient.fruit].name) twice")
                }
            }
        }
        try Menu.checkPrices(juices, fruits, currency: currency)
        let stock = initialStock ?? Array(repeating: nil, count: fruits.count)
        guard stock.count == fruits.count else { throw MenuError("initial stock must list every fruit") }
        for (i, value) in stock.enumerated() {
            if let value, !(0...Limits.maxStock).contains(value) {
                throw MenuError("fruits[\(i)] \"\(fruits[i].name)\": initial stock must be 0 to \(Limits.maxStock), not \(value)")
            }
        }
        let pars = par ?? Array(repeating: nil, count: fruits.count)
        guard pars.count == fruits.count else { throw MenuError("par must list every fruit") }
        for (i, value) in pars.enumerated() {
            // The same bound as a stock: filling to par must be a restock the store accepts.
            if let value, !(0...Limits.maxStock).contains(value) {
                throw MenuError("fruits[\(i)] \"\(fruits[i].name)\": par must be 0 to \(Limits.maxStock), not \(value)")
            }
        }
        self.fruits = fruits
        self.juices = juices
        self.initialStock = stock
        self.par = pars
        self.currency = currency
        self.fruitNames = fruitTable
        self.juiceNames = juiceTable
        self.wire = WireFragments(fruits: fruits, juices: juices)
    }

    /// Prices come all or none: a currency and a price for every juice (0 to `Currency.maxPrice`),
    /// or neither, so a report never sums priced and unpriced sales.
    private static func checkPrices(_ juices: [Juice], _ fruits: [Fruit], currency: Currency?) throws(MenuError) {
        // A reply lists the stock it left as `<fruit>=<n>` and then the money as `amount=<n>`,
        // `voided=<seq>`, `sale=<seq>`: with prices, no fruit may take one of those names.
        if currency != nil, let taken = fruits.first(where: { Menu.moneyWords.contains($0.name.lowercased()) }) {
            throw MenuError("a menu with prices cannot have a fruit named \"\(taken.name)\": the replies use it for money")
        }
        // REPORT and MENU PRICES name money keys after juices (`takings_<juice>`,
        // `lost_revenue_<juice>`, `lost_revenue_by_<fruit>`, `currency=`): a juice named so
        // that one of its keys is another key would make a line say one key twice.
        if currency != nil, let taken = juices.first(where: { Menu.collidesWithMoneyKeys($0.name.lowercased()) }) {
            throw MenuError("a menu with prices cannot have a juice named \"\(taken.name)\": REPORT and MENU PRICES would name two figures alike")
        }
        for (i, juice) in juices.enumerated() {
            let place = "juices[\(i)] \"\(juice.name)\""
            switch (juice.price, currency) {
            case (nil, nil): continue
            case (nil, .some): throw MenuError("\(place): the menu has a currency, so every juice needs a price")
            case (.some, nil): throw MenuError("\(place): a price needs the menu's currency (e.g. \"currency\": \"KRW\")")
            case (let price?, .some):
                guard (0...Currency.maxPrice).contains(price) else {
                    throw MenuError("\(place): the price must be 0 to \(Currency.maxPrice) minor units, not \(price)")
                }
            }
        }
    }

    /// The words a reply uses after the stock values (`Wire.appendReply`).
    package static let moneyWords: Set<String> = ["amount", "voided", "sale", "reason"]

    /// A juice name whose REPORT or MENU PRICES key is another figure's: `amount`
    /// (`voided_amount`), `currency`, `minor_digits`, `revenue...` (`lost_revenue...`), `by_...`.
    private static func collidesWithMoneyKeys(_ name: String) -> Bool {
        name == "amount" || name == "currency" || name == "minor_digits" || name.hasPrefix("revenue") || name.hasPrefix("by_")
    }

    /// The amount of a sale of `count` of juice `juice`, in minor units; nil without prices.
    package func amount(juice: Int, count: Int) -> Int? {
        juices[juice].price.map { $0 * count }
    }

    /// Every name must come back out of the wire, the journal and menu.json as the same bytes
    /// (see `NameRule`).
    package static func checkName(_ name: String, what: String) throws(MenuError) {
        if let problem = NameRule.problem(name) { throw MenuError("\(what): \(problem)") }
    }

    /// The fruit a client named (canonical name or alias, ASCII case-insensitive), if any.
    
    package func fruitIndex(_ name: UnsafeRawBufferPointer) -> Int? { fruitNames.lookup(name) }
    
    package func juiceIndex(_ name: UnsafeRawBufferPointer) -> Int? { juiceNames.lookup(name) }

    public func fruitIndex(_ name: String) -> Int? {
        var n = name
        return n.withUTF8 { fruitNames.lookup(UnsafeRawBufferPointer($0)) }
    }

    public func juiceIndex(_ name: String) -> Int? {
        var n = name
        return n.withUTF8 { juiceNames.lookup(UnsafeRawBufferPointer($0)) }
    }

    /// For each fruit, the largest amount any single recipe takes: below it, some juice cannot be made.
    package var thirstiestNeed: [Int] {
        var need = Array(repeating: 0, count: fruits.count)
        for juice in juices {
            for ingredient in juice.recipe { need[ingredient.fruit] = max(need[ingredient.fruit], ingredient.amount) }
        }
        return need
    }
}

/// Two menus are equal when they list the same fruits, juices, initial stock, par and currency (the name
/// tables and wire fragments are derived from those).
extension Menu: Equatable {
    public static func == (a: Menu, b: Menu) -> Bool {
        a.fruits == b.fruits && a.juices == b.juices && a.initialStock == b.initialStock && a.par == b.par
            && a.currency == b.currency
    }
}

public struct MenuError: Error, Equatable, CustomStringConvertible {
    public let message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

extension Menu {
    /// The original Juice Maker menu: five fruits and seven juices, with Korean names as aliases.
    package static let standard: Menu = {
        let fruits = [
            Fruit(name: "strawberry", aliases: ["딸기"]),
            Fruit(name: "banana", aliases: ["바나나"]),
            Fruit(name: "pineapple", aliases: ["파인애플"]),
            Fruit(name: "kiwi", aliases: ["키위"]),
            Fruit(name: "mango", aliases: ["망고"]),
        ]
        let (strawberry, banana, pineapple, kiwi, mango) = (0, 1, 2, 3, 4)
        let juices = [
            Juice(name: "strawberry", aliases: ["딸기쥬스"], recipe: [Ingredient(fruit: strawberry, amount: 16)], price: 6_000),
            Juice(name: "banana", aliases: ["바나나쥬스"], recipe: [Ingredient(fruit: banana, amount: 2)], price: 4_000),
            Juice(name: "kiwi", aliases: ["키위쥬스"], recipe: [Ingredient(fruit: kiwi, amount: 3)], price: 4_500),
            Juice(name: "pineapple", aliases: ["파인애플쥬스"], recipe: [Ingredient(fruit: pineapple, amount: 2)], price: 4_500),
            Juice(name: "strawberry-banana", aliases: ["딸바쥬스"],
                  recipe: [Ingredient(fruit: strawberry, amount: 10), Ingredient(fruit: banana, amount: 1)], price: 5_500),
            Juice(name: "mango", aliases: ["망고쥬스"], recipe: [Ingredient(fruit: mango, amount: 3)], price: 5_000),
            Juice(name: "mango-kiwi", aliases: ["망키쥬스"],
                  recipe: [Ingredient(fruit: mango, amount: 2), Ingredient(fruit: kiwi, amount: 1)], price: 5_500),
        ]
        do {
            // Prices in won, as a juice stand in Seoul charges (README, "The menu").
            return try Menu(fruits: fruits, juices: juices, currency: Currency(code: "KRW"))
        } catch {
            fatalError("the standard menu is invalid: \(error)")
        }
    }()
}

extension Menu {
    /// How many of juice `juice` the stock can make: the minimum over its recipe of
    /// stock / amount (`stock` per fruit, in menu order).
    package func canMake(juice: Int, stock: [Int]) -> Int {
        canMake(juices[juice], stock: stock)
    }

    /// The same rule for a juice of this menu (`/state`, the terminal board and JuiceClient use it).
    package func canMake(_ juice: Juice, stock: [Int]) -> Int {
        juice.recipe.map { max(0, stock[$0.fruit]) / $0.amount }.min() ?? 0
    }
}

// The menu as the server describes it: juices and their recipes, plus display aliases.
// Nothing here is hard-coded: every name comes from `OK MENU` / `OK MENU ALIASES`.

public struct Ingredient: Equatable, Sendable {
    public var fruit: String
    public var amount: Int

    public init(fruit: String, amount: Int) {
        self.fruit = fruit
        self.amount = amount
    }
}

public struct Recipe: Equatable, Sendable {
    public var juice: String
    public var ingredients: [Ingredient]

    public init(juice: String, ingredients: [Ingredient]) {
        self.juice = juice
        self.ingredients = ingredients
    }

    /// How many more of this juice `stock` can make: the minimum over its fruits of
    /// stock / amount. A fruit missing from the stock counts as 0. A recipe with no usable
    /// ingredient cannot be made (0), rather than being "infinitely" available.
    public func servings(from stock: [String: Int]) -> Int {
        var best: Int? = nil
        for ingredient in ingredients where ingredient.amount > 0 {
            let have = max(0, stock[ingredient.fruit] ?? 0)
            let possible = have / ingredient.amount
            best = min(best ?? possible, possible)
        }
        return best ?? 0
    }
}

public struct Menu: Equatable, Sendable {
    /// Juices in menu order.
    public var recipes: [Recipe]

    public init(recipes: [Recipe]) {
        self.recipes = recipes
    }

    /// Fruits named by any recipe, in order of first appearance.
    public var fruitsInRecipes: [String] {
        var seen = Set<String>()
        var fruits: [String] = []
        for recipe in recipes {
            for ingredient in recipe.ingredients where seen.insert(ingredient.fruit).inserted {
                fruits.append(ingredient.fruit)
            }
        }
        return fruits
    }

    /// The most of `fruit` any single recipe takes: with less than that in stock, at least one
    /// juice can no longer be made, so the board flags the fruit as running low.
    public func thirstiestAmount(of fruit: String) -> Int {
        var most = 0
        for recipe in recipes {
            for ingredient in recipe.ingredients where ingredient.fruit == fruit {
                most = max(most, ingredient.amount)
            }
        }
        return most
    }

    /// Parses the fields after `OK MENU`: `juice=fruit:amount+fruit:amount ...`.
    /// Returns nil if any field is malformed, so a garbled reply never becomes a wrong menu.
    public static func parse(fields: [Substring]) -> Menu? {
        var recipes: [Recipe] = []
        for field in fields where !field.isEmpty {
            guard let eq = field.firstIndex(of: "=") else { return nil }
            let juice = String(field[..<eq])
            guard !juice.isEmpty else { return nil }
            var ingredients: [Ingredient] = []
            for part in field[field.index(after: eq)...].split(separator: "+") {
                guard let colon = part.lastIndex(of: ":"),
                      let amount = Int(part[part.index(after: colon)...]) else { return nil }
                let fruit = String(part[..<colon])
                guard !fruit.isEmpty else { return nil }
                ingredients.append(Ingredient(fruit: fruit, amount: amount))
            }
            recipes.append(Recipe(juice: juice, ingredients: ingredients))
        }
        return Menu(recipes: recipes)
    }
}

/// Alternative names from `OK MENU ALIASES` (e.g. Korean names), by kind.
public struct Aliases: Equatable, Sendable {
    public var fruit: [String: [String]]
    public var juice: [String: [String]]

    public init(fruit: [String: [String]] = [:], juice: [String: [String]] = [:]) {
        self.fruit = fruit
        self.juice = juice
    }

    public static let none = Aliases()

    /// Parses the fields after `OK MENU ALIASES`: `kind:name=alias1,alias2` (or `kind:name=`).
    /// Unknown kinds are skipped so the server may add some later.
    public static func parse(fields: [Substring]) -> Aliases {
        var aliases = Aliases()
        for field in fields {
            guard let colon = field.firstIndex(of: ":"),
                  let eq = field[colon...].firstIndex(of: "=") else { continue }
            let kind = field[..<colon]
            let name = String(field[field.index(after: colon)..<eq])
            let names = field[field.index(after: eq)...].split(separator: ",").map(String.init)
            switch kind {
            case "fruit": aliases.fruit[name] = names
            case "juice": aliases.juice[name] = names
            default: continue
            }
        }
        return aliases
    }

    /// The name to show beside `name` in a language: for Korean, the first alias with
    /// non-ASCII characters, else the first alias. Nil when there is nothing different to show.
    public static func preferred(_ aliases: [String]?, for name: String, language: Language) -> String? {
        guard language == .korean, let aliases, !aliases.isEmpty else { return nil }
        let choice = aliases.first(where: { $0.unicodeScalars.contains { !$0.isASCII } }) ?? aliases[0]
        return choice == name ? nil : choice
    }
}

public enum Language: String, Equatable, Sendable {
    case english = "en"
    case korean = "ko"
}

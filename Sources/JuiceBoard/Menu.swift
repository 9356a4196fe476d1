import JuiceCore

// The menu as the server describes it is JuiceCore's `Menu`, read from `OK MENU` by `WireReader`
// (its fruits are those the recipes name); aliases come separately from `OK MENU ALIASES`.
// Nothing here is hard-coded: every name comes from the server. The stock the board holds is
// keyed by fruit name, as `OK STOCK` and the events report it.

extension Menu {
    /// How many more of `juice` `stock` can make, by the rule the server's /state uses
    /// (`canMake`). A fruit missing from the stock counts as 0.
    public func servings(of juice: Juice, from stock: [String: Int]) -> Int {
        canMake(juice, stock: fruits.map { stock[$0.name] ?? 0 })
    }

    /// The most of `fruit` any single recipe takes: with less than that in stock, at least one
    /// juice can no longer be made, so the board flags the fruit as running low. 0 for a fruit
    /// the menu does not have.
    public func thirstiestAmount(of fruit: String) -> Int {
        guard let index = fruits.firstIndex(where: { $0.name == fruit }) else { return 0 }
        return thirstiestNeed[index]
    }
}

/// Alternative names from `OK MENU ALIASES` (e.g. Korean names), by kind.
public typealias Aliases = MenuAliases

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

extension MenuAliases {
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

import JuiceCore

/// The language a terminal program shows names in (`--lang`).
public enum Language: String, Equatable, Sendable {
    case english = "en"
    case korean = "ko"
}

extension MenuAliases {
    /// The name to show beside `name` in a language: for Korean, the first alias with
    /// non-ASCII characters, else the first alias. Nil when there is nothing different to show.
    public static func preferred(_ aliases: [String]?, for name: String, language: Language) -> String? {
        guard language == .korean, let aliases, !aliases.isEmpty else { return nil }
        let choice = aliases.first(where: { $0.unicodeScalars.contains { !$0.isASCII } }) ?? aliases[0]
        return choice == name ? nil : choice
    }
}

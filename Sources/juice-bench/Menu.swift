/// One fruit and how much of it a juice needs.
struct Ingredient: Equatable {
    var fruit: String
    var amount: Int
}

/// Parses the reply to MENU:
/// `OK MENU strawberry=strawberry:16 mango-kiwi=mango:2+kiwi:1` (juice=fruit:amount+...).
/// Returns the juices in menu order; nil if the line is not a MENU reply.
func parseMenu(_ reply: String) -> [(juice: String, recipe: [Ingredient])]? {
    let words = reply.split(separator: " ")
    guard words.count >= 2, words[0] == "OK", words[1] == "MENU" else { return nil }
    var juices: [(juice: String, recipe: [Ingredient])] = []
    for entry in words.dropFirst(2) {
        let parts = entry.split(separator: "=", maxSplits: 1)
        guard parts.count == 2 else { return nil }
        var recipe: [Ingredient] = []
        for item in parts[1].split(separator: "+") {
            let pair = item.split(separator: ":")
            guard pair.count == 2, let amount = Int(pair[1]) else { return nil }
            recipe.append(Ingredient(fruit: String(pair[0]), amount: amount))
        }
        juices.append((String(parts[0]), recipe))
    }
    return juices
}

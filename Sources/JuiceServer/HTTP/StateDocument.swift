import JuiceCore

/// `GET /state`: what a page or a script needs to start — the seq, the menu (fruits and juices
/// with aliases and recipes), the stock, and how many of each juice the stock can make:
///
///     {"seq":3,"fruits":[{"name":"strawberry","aliases":["딸기"]},...],
///      "juices":[{"name":"strawberry-banana","aliases":["딸바쥬스"],
///                 "recipe":[{"fruit":"strawberry","amount":10},{"fruit":"banana","amount":1}]},...],
///      "stock":{"strawberry":15,...},"can_make":{"strawberry-banana":1,...}}
enum StateDocument {
    static func json(seq: UInt64, stock: [Int], menu: Menu) -> [UInt8] {
        var out: [UInt8] = []
        out.append(ascii: "{\"seq\":")
        out.append(decimal: seq)
        out.append(ascii: ",\"fruits\":[")
        for (i, fruit) in menu.fruits.enumerated() {
            if i > 0 { out.append(UInt8(ascii: ",")) }
            out.append(ascii: "{\"name\":")
            JSONText.appendString(fruit.name, to: &out)
            appendAliases(fruit.aliases, to: &out)
            out.append(UInt8(ascii: "}"))
        }
        out.append(ascii: "],\"juices\":[")
        for (i, juice) in menu.juices.enumerated() {
            if i > 0 { out.append(UInt8(ascii: ",")) }
            out.append(ascii: "{\"name\":")
            JSONText.appendString(juice.name, to: &out)
            appendAliases(juice.aliases, to: &out)
            out.append(ascii: ",\"recipe\":[")
            for (j, ingredient) in juice.recipe.enumerated() {
                if j > 0 { out.append(UInt8(ascii: ",")) }
                out.append(ascii: "{\"fruit\":")
                JSONText.appendString(menu.fruits[ingredient.fruit].name, to: &out)
                out.append(ascii: ",\"amount\":")
                out.append(decimal: ingredient.amount)
                out.append(UInt8(ascii: "}"))
            }
            out.append(ascii: "]}")
        }
        out.append(ascii: "],\"stock\":{")
        for (i, fruit) in menu.fruits.enumerated() {
            if i > 0 { out.append(UInt8(ascii: ",")) }
            JSONText.appendString(fruit.name, to: &out)
            out.append(UInt8(ascii: ":"))
            out.append(decimal: stock[i])
        }
        out.append(ascii: "},\"can_make\":{")
        for (i, juice) in menu.juices.enumerated() {
            if i > 0 { out.append(UInt8(ascii: ",")) }
            JSONText.appendString(juice.name, to: &out)
            out.append(UInt8(ascii: ":"))
            out.append(decimal: canMake(juice, stock: stock))
        }
        out.append(ascii: "}}")
        return out
    }

    /// How many more of a juice the stock can make: the scarcest ingredient decides.
    static func canMake(_ juice: Juice, stock: [Int]) -> Int {
        juice.recipe.map { stock[$0.fruit] / $0.amount }.min() ?? 0
    }

    private static func appendAliases(_ aliases: [String], to out: inout [UInt8]) {
        out.append(ascii: ",\"aliases\":[")
        for (i, alias) in aliases.enumerated() {
            if i > 0 { out.append(UInt8(ascii: ",")) }
            JSONText.appendString(alias, to: &out)
        }
        out.append(UInt8(ascii: "]"))
    }
}

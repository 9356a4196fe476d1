import JuiceCore
import JuicePlatform
import JuiceLog

/// The `GET /state` document (PROTOCOL.md, "HTTP"), keys in the contract's order:
///
///     {"seq":3,
///      "store":"5f0c9a1e7b2d4c68",
///      "fruits":[{"name":"strawberry","aliases":["딸기"]}, {"name":"kiwi","aliases":["키위"],"par":40}, ...],
///      "juices":[{"name":"strawberry-banana","aliases":["딸바쥬스"],
///                 "recipe":[{"fruit":"strawberry","amount":10},{"fruit":"banana","amount":1}]}, ...],
///      "stock":{"strawberry":15,"banana":10, ...},
///      "can_make":{"strawberry-banana":1, ...},
///      "read_only":null}
///
/// `read_only` is null, or why the store refuses changes (a full disk): the pages show it. A
/// fruit has `par` only when the menu gives it one, so a menu without par gives the document it
/// gave before par existed, byte for byte. With prices, each juice has `price` (minor units)
/// and the document ends with `"currency":{"code":"KRW","minor_digits":0}`; without, neither.
package enum StateJSON {
    package static let contentType = SalesJSON.contentType

    /// `stock` is per fruit of `menu`, in menu order.
    /// `store` is the store's id (nil leaves the member out).
    package static func body(menu: Menu, seq: UInt64, stock: [Int], readOnly: String? = nil, store: String? = nil) -> String {
        let fruits = menu.fruits.indices.map { i in
            var fields = [("name", JSONText.string(menu.fruits[i].name)), ("aliases", JSONText.strings(menu.fruits[i].aliases))]
            if let par = menu.par[i] { fields.append(("par", JSONText.number(par))) }
            return JSONText.object(fields)
        }
        let juices = menu.juices.map { juice in
            let recipe = juice.recipe.map { ingredient in
                JSONText.object([("fruit", JSONText.string(menu.fruits[ingredient.fruit].name)),
                                 ("amount", JSONText.number(ingredient.amount))])
            }
            var fields = [("name", JSONText.string(juice.name)), ("aliases", JSONText.strings(juice.aliases)),
                          ("recipe", JSONText.array(recipe))]
            if let price = juice.price { fields.append(("price", JSONText.number(price))) }
            return JSONText.object(fields)
        }
        let stockObject = JSONText.object(menu.fruits.indices.map { (menu.fruits[$0].name, JSONText.number(stock[$0])) })
        let canMake = JSONText.object(menu.juices.indices.map { (menu.juices[$0].name, JSONText.number(menu.canMake(juice: $0, stock: stock))) })
        return JSONText.object([("seq", JSONText.number(seq))] + (store.map { [("store", JSONText.string($0))] } ?? []) + [
            ("fruits", JSONText.array(fruits)),
            ("juices", JSONText.array(juices)),
            ("stock", stockObject),
            ("can_make", canMake),
            ("read_only", readOnly.map(JSONText.string) ?? "null"),
        ] + (menu.currency.map { [("currency", CurrencyJSON.object($0))] } ?? []))
    }
}

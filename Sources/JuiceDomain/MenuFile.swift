import Foundation
import JuiceCore
import JuicePlatform
import JuiceLog

/// The shop's own menu as a JSON file (`--menu FILE`, `--print-menu`):
///
///     { "currency": "KRW",
///       "fruits": [ { "name": "kiwi", "aliases": ["키위"], "initial_stock": 10, "par": 40 }, ... ],
///       "juices": [ { "name": "mango-kiwi", "aliases": ["망키쥬스"], "price": 5500,
///                     "recipe": [ { "fruit": "mango", "amount": 2 }, { "fruit": "kiwi", "amount": 1 } ] }, ... ] }
///
/// Recipes are arrays, not objects, because their order is the order replies list the fruits.
/// `initial_stock` and `par` are optional; an absent one is left out of the printed file too, so
/// a menu without them prints as it did before they existed. So are `currency` (an ISO 4217 code)
/// and each juice's `price` (a whole number of the currency's minor units: won, cents): all or none.
package enum MenuFile {
    package struct FileFruit: Codable {
        package var name: String
        package var aliases: [String]?
        package var initial_stock: Int?
        package var par: Int?

        package init(name: String, aliases: [String]?, initial_stock: Int?, par: Int?) {
            (self.name, self.aliases, self.initial_stock, self.par) = (name, aliases, initial_stock, par)
        }

        /// `par` is read as a number and then judged (`wholeNumber`).
        package init(from decoder: Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            name = try c.decode(String.self, forKey: .name)
            aliases = try c.decodeIfPresent([String].self, forKey: .aliases)
            initial_stock = try c.decodeIfPresent(Int.self, forKey: .initial_stock)
            par = try MenuFile.wholeNumber(.par, in: c) { "par must be a whole number 0 to \(Limits.maxStock), not \($0)" }
        }
    }

    package struct FileIngredient: Codable {
        package var fruit: String
        package var amount: Int
    }

    package struct FileJuice: Codable {
        package var name: String
        package var aliases: [String]?
        package var price: Int?
        package var recipe: [FileIngredient]

        package init(name: String, aliases: [String]?, price: Int?, recipe: [FileIngredient]) {
            (self.name, self.aliases, self.price, self.recipe) = (name, aliases, price, recipe)
        }

        /// `price` is read as a number and then judged, as `par` is (`wholeNumber`).
        package init(from decoder: Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            name = try c.decode(String.self, forKey: .name)
            aliases = try c.decodeIfPresent([String].self, forKey: .aliases)
            recipe = try c.decode([FileIngredient].self, forKey: .recipe)
            price = try MenuFile.wholeNumber(.price, in: c) {
                "price must be a whole number of minor units, 0 to \(Currency.maxPrice), not \($0)"
            }
        }
    }

    /// An optional whole-number field, read as a number and then judged, so that 2.5 or 1e30
    /// gets an error naming the field (Foundation's Int decoding calls either "not valid JSON",
    /// with no place); `refusal` words it from the value read. The range is Menu's to check.
    private static func wholeNumber<Key: CodingKey>(_ key: Key, in c: KeyedDecodingContainer<Key>,
                                                    refusal: (Double) -> String) throws -> Int? {
        try c.decodeIfPresent(Double.self, forKey: key).map { value in
            guard value == value.rounded(), abs(value) <= 1e15 else {
                throw DecodingError.dataCorruptedError(forKey: key, in: c, debugDescription: refusal(value))
            }
            return Int(value)
        }
    }

    package struct File: Codable {
        package var currency: String?
        package var fruits: [FileFruit]
        package var juices: [FileJuice]
    }

    package static func load(path: String) -> Result<Menu, MenuError> {
        guard let data = FileManager.default.contents(atPath: path) else {
            return .failure(MenuError("cannot read menu file \(path)"))
        }
        return parse(data).mapError { MenuError("menu file \(path): \($0.message)") }
    }

    package static func parse(_ data: Data) -> Result<Menu, MenuError> {
        let file: File
        do {
            file = try JSONDecoder().decode(File.self, from: data)
        } catch let DecodingError.dataCorrupted(context) {
            return .failure(MenuError("bad JSON\(location(context.codingPath)): \(underlying(context))"))
        } catch let DecodingError.keyNotFound(key, context) {
            return .failure(MenuError("missing \"\(key.stringValue)\"\(location(context.codingPath))"))
        } catch let DecodingError.typeMismatch(_, context) {
            return .failure(MenuError("wrong type\(location(context.codingPath)): \(context.debugDescription)"))
        } catch let DecodingError.valueNotFound(_, context) {
            return .failure(MenuError("missing value\(location(context.codingPath))"))
        } catch {
            return .failure(MenuError("bad JSON: \(error)"))
        }
        let fruits = file.fruits.map { Fruit(name: $0.name, aliases: $0.aliases ?? []) }
        // A recipe names its fruit the way a client would: bytes, ASCII letters folded (Unicode
        // lowercasing would take "ä" for "Ä", which the menu holds as two different fruits).
        var fruitNames = NameTable()
        for (i, fruit) in fruits.enumerated() {
            for name in [fruit.name] + fruit.aliases { _ = fruitNames.insert(name, index: i) }
        }
        var juices: [Juice] = []
        for (j, juice) in file.juices.enumerated() {
            var recipe: [Ingredient] = []
            for (k, item) in juice.recipe.enumerated() {
                var named = item.fruit
                guard let index = named.withUTF8({ fruitNames.lookup(UnsafeRawBufferPointer($0)) }) else {
                    return .failure(MenuError("juices[\(j)] \"\(juice.name)\" recipe[\(k)]: unknown fruit \"\(item.fruit)\""))
                }
                guard item.amount >= 1 else {
                    return .failure(MenuError("juices[\(j)] \"\(juice.name)\" recipe[\(k)]: amount of \(item.fruit) must be at least 1, not \(item.amount)"))
                }
                recipe.append(Ingredient(fruit: index, amount: item.amount))
            }
            juices.append(Juice(name: juice.name, aliases: juice.aliases ?? [], recipe: recipe, price: juice.price))
        }
        var currency: Currency?
        if let code = file.currency {
            guard let known = Currency(code: code) else {
                return .failure(MenuError("currency \"\(code)\" is not an ISO 4217 code (three capital letters, e.g. KRW, USD, EUR)"))
            }
            currency = known
        }
        do {
            return .success(try Menu(fruits: fruits, juices: juices, initialStock: file.fruits.map(\.initial_stock),
                                      par: file.fruits.map(\.par), currency: currency))
        } catch {
            return .failure(error)
        }
    }

    /// The menu as a JSON starting file.
    package static func json(_ menu: Menu) -> String {
        let file = File(
            currency: menu.currency?.code,
            fruits: menu.fruits.enumerated().map { i, f in
                FileFruit(name: f.name, aliases: f.aliases, initial_stock: menu.initialStock[i], par: menu.par[i]) },
            juices: menu.juices.map { j in
                FileJuice(name: j.name, aliases: j.aliases, price: j.price,
                          recipe: j.recipe.map { FileIngredient(fruit: menu.fruits[$0.fruit].name, amount: $0.amount) }) })
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        let data = (try? encoder.encode(file)) ?? Data()
        return String(decoding: data, as: UTF8.self)
    }

    private static func location(_ path: [CodingKey]) -> String {
        guard !path.isEmpty else { return "" }
        return " at " + path.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
    }

    private static func underlying(_ context: DecodingError.Context) -> String {
        if let e = context.underlyingError as NSError?, let d = e.userInfo[NSDebugDescriptionErrorKey] as? String { return d }
        return context.debugDescription
    }
}

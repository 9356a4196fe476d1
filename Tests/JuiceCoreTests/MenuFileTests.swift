import Foundation
import Testing
@testable import JuiceCore
import JuiceDomain
import JuiceStorage

@Suite("MenuFile", .onOwnThreads)
struct MenuFileTests {
    func same(_ a: Menu, _ b: Menu) {
        #expect(a.fruits == b.fruits)
        #expect(a.juices == b.juices)
        #expect(a.initialStock == b.initialStock)
        #expect(Wire.menuLine(a) == Wire.menuLine(b))
        #expect(Wire.menuAliasesLine(a) == Wire.menuAliasesLine(b))
    }

    @Test("the standard menu round-trips through JSON")
    func standardRoundTrip() throws {
        let json = MenuFile.json(.standard)
        #expect(json.contains("\"mango-kiwi\""))
        #expect(json.contains("망키쥬스"))
        let menu = try parseMenu(json).get()
        same(menu, .standard)
        #expect(MenuFile.json(menu) == json)
    }

    @Test("initial stock round-trips")
    func initialStockRoundTrip() throws {
        let m = try Menu(fruits: Menu.standard.fruits, juices: Menu.standard.juices, initialStock: [5, nil, 0, 1_000_000_000, nil], currency: Menu.standard.currency)
        let json = MenuFile.json(m)
        #expect(json.contains("\"initial_stock\""))
        same(try parseMenu(json).get(), m)
    }

    @Test("the documented form, with aliases and case in recipes")
    func documentedForm() throws {
        let json = """
        { "fruits": [ { "name": "kiwi", "aliases": ["키위"], "initial_stock": 10 }, { "name": "mango" } ],
          "juices": [ { "name": "mango-kiwi", "aliases": ["망키쥬스"],
                        "recipe": [ { "fruit": "망고", "amount": 2 }, { "fruit": "KIWI", "amount": 1 } ] },
                      { "name": "mango", "recipe": [ { "fruit": "mango", "amount": 3 } ] } ] }
        """
        let json2 = json.replacingOccurrences(of: "{ \"name\": \"mango\" }", with: "{ \"name\": \"mango\", \"aliases\": [\"망고\"] }")
        let m = try parseMenu(json2).get()
        #expect(m.fruits == [Fruit(name: "kiwi", aliases: ["키위"]), Fruit(name: "mango", aliases: ["망고"])])
        #expect(m.juices == [Juice(name: "mango-kiwi", aliases: ["망키쥬스"], recipe: [Ingredient(fruit: 1, amount: 2), Ingredient(fruit: 0, amount: 1)]),
                             Juice(name: "mango", recipe: [Ingredient(fruit: 1, amount: 3)])])
        #expect(m.initialStock == [10, nil])
        #expect(StockLedger(menu: m).stock == [10, 10])
        // Without the alias, "망고" names nothing.
        #expect(parseError(json) == "juices[0] \"mango-kiwi\" recipe[0]: unknown fruit \"망고\"")
    }

    @Test("a recipe names its fruit as the wire does: bytes, ASCII letters folded")
    func recipeLookupFoldsASCIIOnly() throws {
        // "Ä" and "ä" are two fruits to the server (only ASCII letters fold); Unicode lowercasing
        // took the recipe's "äpfel" for "Äpfel".
        let m = try parseMenu("""
            {"fruits": [{"name": "\u{C4}pfel"}, {"name": "\u{E4}pfel"}], "juices": [{"name": "x", "recipe": [{"fruit": "\u{E4}PFEL", "amount": 1}]}]}
            """).get()
        #expect(m.juices[0].recipe == [Ingredient(fruit: 1, amount: 1)])
    }

    @Test("bad JSON", arguments: ["", "not json", "{", "[1, 2]", "{\"fruits\": [}", "\u{FEFF}{,}"])
    func badJSON(_ text: String) throws {
        let message = try #require(parseError(text))
        #expect(message.contains("JSON") || message.contains("wrong type"), "\(message)")
    }

    @Test("structural errors name the place")
    func structural() {
        #expect(parseError("{\"fruits\": [{\"name\": \"kiwi\"}]}") == "missing \"juices\"")
        #expect(parseError("{\"juices\": []}") == "missing \"fruits\"")
        #expect(parseError("{\"fruits\": [{\"name\": \"kiwi\"}], \"juices\": [{\"name\": \"x\"}]}")?.hasPrefix("missing \"recipe\" at .juices[0]") == true)
        let wrongType = parseError("{\"fruits\": [{\"name\": \"kiwi\"}], \"juices\": [{\"name\": \"x\", \"recipe\": [{\"fruit\": \"kiwi\", \"amount\": \"two\"}]}]}")
        #expect(wrongType?.hasPrefix("wrong type at .juices[0].recipe[0].amount") == true, "\(wrongType ?? "")")
        #expect(parseError("{\"fruits\": [{\"name\": null}], \"juices\": []}")?.hasPrefix("missing value at .fruits[0].name") == true)
        #expect(parseError("{\"fruits\": [], \"juices\": []}") == "the menu has no fruits")
        #expect(parseError("{\"fruits\": [{\"name\": \"kiwi\"}], \"juices\": []}") == "the menu has no juices")
    }

    @Test("recipe errors name the juice and the fruit")
    func recipeErrors() {
        #expect(parseError("""
            {"fruits": [{"name": "kiwi"}], "juices": [{"name": "x", "recipe": [{"fruit": "kiwi", "amount": 1}, {"fruit": "durian", "amount": 1}]}]}
            """) == "juices[0] \"x\" recipe[1]: unknown fruit \"durian\"")
        #expect(parseError("""
            {"fruits": [{"name": "kiwi"}], "juices": [{"name": "ok", "recipe": [{"fruit": "kiwi", "amount": 1}]}, {"name": "y", "recipe": [{"fruit": "kiwi", "amount": 0}]}]}
            """) == "juices[1] \"y\" recipe[0]: amount of kiwi must be at least 1, not 0")
        #expect(parseError("""
            {"fruits": [{"name": "kiwi"}], "juices": [{"name": "y", "recipe": [{"fruit": "kiwi", "amount": -2}]}]}
            """) == "juices[0] \"y\" recipe[0]: amount of kiwi must be at least 1, not -2")
        #expect(parseError("""
            {"fruits": [{"name": "kiwi"}], "juices": [{"name": "y", "recipe": [{"fruit": "kiwi", "amount": 1000000001}]}]}
            """) == "juices[0] \"y\": the amount of kiwi must be 1 to 1000000000, not 1000000001")
        #expect(parseError("""
            {"fruits": [{"name": "kiwi"}], "juices": [{"name": "y", "recipe": []}]}
            """) == "juices[0] \"y\": the recipe is empty")
        #expect(parseError("""
            {"fruits": [{"name": "kiwi"}], "juices": [{"name": "y", "recipe": [{"fruit": "kiwi", "amount": 1}, {"fruit": "Kiwi", "amount": 1}]}]}
            """) == "juices[0] \"y\": the recipe lists kiwi twice")
    }

    @Test("duplicate and bad names")
    func names() {
        #expect(parseError("""
            {"fruits": [{"name": "kiwi"}], "juices": [{"name": "x", "recipe": [{"fruit": "kiwi", "amount": 1}]}, {"name": "X", "recipe": [{"fruit": "kiwi", "amount": 2}]}]}
            """) == "juices[1] \"X\": the name \"X\" is already used by juice \"x\"")
        #expect(parseError("""
            {"fruits": [{"name": "kiwi"}, {"name": "KIWI"}], "juices": [{"name": "x", "recipe": [{"fruit": "kiwi", "amount": 1}]}]}
            """) == "fruits[1] \"KIWI\": the name \"KIWI\" is already used by fruit \"kiwi\"")
        #expect(parseError("""
            {"fruits": [{"name": "ki wi"}], "juices": [{"name": "x", "recipe": [{"fruit": "ki wi", "amount": 1}]}]}
            """)?.hasPrefix("fruits[0] \"ki wi\": ") == true)
        #expect(parseError("""
            {"fruits": [{"name": "kiwi", "initial_stock": -5}], "juices": [{"name": "x", "recipe": [{"fruit": "kiwi", "amount": 1}]}]}
            """) == "fruits[0] \"kiwi\": initial stock must be 0 to 1000000000, not -5")
        // A juice and a fruit may both be called mango.
        #expect(parseError("""
            {"fruits": [{"name": "mango"}], "juices": [{"name": "mango", "recipe": [{"fruit": "mango", "amount": 3}]}]}
            """) == nil)
    }

    @Test("load names the file")
    func load() throws {
        guard case .failure(let missing) = MenuFile.load(path: "/nonexistent/juice-menu.json") else {
            Issue.record("a missing file cannot load")
            return
        }
        #expect(missing.message == "cannot read menu file /nonexistent/juice-menu.json")

        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("juicecore-tests-\(getpid())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let bad = dir.appendingPathComponent("bad.json")
        try Data("{\"fruits\": []}".utf8).write(to: bad)
        guard case .failure(let e) = MenuFile.load(path: bad.path) else {
            Issue.record("a bad file cannot load")
            return
        }
        #expect(e.message == "menu file \(bad.path): missing \"juices\"")
        let good = dir.appendingPathComponent("good.json")
        try Data(MenuFile.json(.standard).utf8).write(to: good)
        same(try MenuFile.load(path: good.path).get(), .standard)
    }
}

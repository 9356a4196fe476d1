import Foundation
import Glibc
import JuiceCore
import JuiceDomain
import JuiceStorage
import JuicePlatform
import JuiceLog
import JuiceLoop
import JuiceServices
import JuiceLine
import JuiceHTTP
import JuiceServer
import Testing

/// A shop's own menu: `--menu FILE`, `--print-menu`, and the data directory's memory of its menu.
@Suite(.onOwnThreads) struct MenuFileTests {
    static let lemonadeMenu = """
    {
      "fruits": [
        { "name": "lemon", "aliases": ["레몬"], "initial_stock": 6 },
        { "name": "mango", "aliases": ["망고"] },
        { "name": "kiwi" }
      ],
      "juices": [
        { "name": "lemonade", "aliases": ["레모네이드"], "recipe": [ { "fruit": "lemon", "amount": 2 } ] },
        { "name": "mango-kiwi", "recipe": [ { "fruit": "mango", "amount": 2 }, { "fruit": "kiwi", "amount": 1 } ] }
      ]
    }
    """

    func write(_ text: String, in dir: String, name: String = "menu.json") -> String {
        let path = dir + "/" + name
        #expect(FileManager.default.createFile(atPath: path, contents: Data(text.utf8)))
        return path
    }

    @Test func printMenuWritesTheDefaultMenuAsAStartingFile() throws {
        let (status, output) = try ExecutableServer.run(["--print-menu"])
        #expect(status == 0)
        let menu = try MenuFile.parse(Data(output.utf8)).get()
        #expect(Wire.menuLine(menu) == Wire.menuLine(.standard))
        #expect(menu.fruits == Menu.standard.fruits)
    }

    @Test func aShopRunsItsOwnMenu() throws {
        let dir = temporaryDirectory()
        defer { removeTemporary(dir) }
        let menu = write(Self.lemonadeMenu, in: dir)
        let server = try ExecutableServer(["--data", dir + "/data", "--menu", menu])
        let c = try server.client()
        #expect(try c.command("MENU") == "OK MENU lemonade=lemon:2 mango-kiwi=mango:2+kiwi:1")
        #expect(try c.command("STOCK") == "OK STOCK seq=0 lemon=6 mango=10 kiwi=10")
        #expect(try c.command("ORDER 레모네이드 3") == "OK ORDER lemonade 3 seq=1 lemon=0")
        #expect(try c.command("ORDER lemonade").hasPrefix("ERR OUT_OF_STOCK needs lemon=2 has lemon=0"))
        #expect(try c.command("ORDER strawberry").hasPrefix("ERR UNKNOWN_JUICE"))
        #expect(try c.command("MENU ALIASES") == "OK MENU ALIASES fruit:lemon=레몬 fruit:mango=망고 fruit:kiwi= juice:lemonade=레모네이드 juice:mango-kiwi=")
        #expect(server.terminate() == 0)
        let (status, output) = try ExecutableServer.run(["--menu", menu, "--print-menu"])
        #expect(status == 0 && output.contains("\"lemonade\""))
    }

    /// A fruit added by a new menu gets its initial stock once, and keeps it across restarts.
    @Test func aFruitAddedByANewMenuKeepsItsInitialStock() throws {
        let dir = temporaryDirectory()
        defer { removeTemporary(dir) }
        let data = dir + "/data"
        var server = try ExecutableServer(["--data", data])
        #expect(server.terminate() == 0)
        let withApple = try String(decoding: JSONSerialization.data(withJSONObject: [
            "fruits": ["strawberry", "banana", "pineapple", "kiwi", "mango", "apple"].map { ["name": $0] },
            "juices": [["name": "apple", "recipe": [["fruit": "apple", "amount": 3]]]],
        ]), as: UTF8.self)
        let menu = write(withApple, in: dir)
        for flags in [["--initial-stock", "50"], []] {
            server = try ExecutableServer(["--data", data, "--menu", menu, "--accept-menu-change"] + flags)
            #expect(try server.client().command("STOCK") == "OK STOCK seq=0 strawberry=10 banana=10 pineapple=10 kiwi=10 mango=10 apple=50")
            #expect(server.terminate() == 0)
        }
    }

    @Test func anExplicitInitialStockOverridesTheMenus() throws {
        let dir = temporaryDirectory()
        defer { removeTemporary(dir) }
        let server = try ExecutableServer(["--in-memory", "--menu", write(Self.lemonadeMenu, in: dir), "--initial-stock", "3"])
        #expect(try server.client().command("STOCK") == "OK STOCK seq=0 lemon=3 mango=3 kiwi=3")
        #expect(server.terminate() == 0)
    }

    @Test(arguments: [
        ("{ \"fruits\": [", "bad JSON"),
        ("{ \"fruits\": [ { \"name\": \"kiwi\" } ] }", "missing \"juices\""),
        ("{ \"fruits\": [ { \"name\": \"kiwi\" } ], \"juices\": [ { \"name\": \"k\", \"recipe\": [ { \"fruit\": \"durian\", \"amount\": 1 } ] } ] }",
         "juices[0] \"k\" recipe[0]: unknown fruit \"durian\""),
        ("{ \"fruits\": [ { \"name\": \"kiwi\" } ], \"juices\": [ { \"name\": \"k\", \"recipe\": [ { \"fruit\": \"kiwi\", \"amount\": 0 } ] } ] }",
         "amount of kiwi must be at least 1"),
        ("{ \"fruits\": [ { \"name\": \"kiwi\" }, { \"name\": \"KIWI\" } ], \"juices\": [ { \"name\": \"k\", \"recipe\": [ { \"fruit\": \"kiwi\", \"amount\": 1 } ] } ] }",
         "already used by fruit \"kiwi\""),
        ("{ \"fruits\": [ { \"name\": \"kiwi\" } ], \"juices\": [ { \"name\": \"k\", \"recipe\": [ { \"fruit\": \"kiwi\", \"amount\": 1 } ] }, { \"name\": \"k\", \"recipe\": [ { \"fruit\": \"kiwi\", \"amount\": 2 } ] } ] }",
         "juices[1] \"k\": the name \"k\" is already used by juice \"k\""),
        ("{ \"fruits\": [ { \"name\": \"kiwi\", \"par\": -3 } ], \"juices\": [ { \"name\": \"k\", \"recipe\": [ { \"fruit\": \"kiwi\", \"amount\": 1 } ] } ] }",
         "fruits[0] \"kiwi\": par must be 0 to 1000000000, not -3"),
    ])
    func anInvalidMenuRefusesToStartAndSaysWhy(json: String, message: String) throws {
        let dir = temporaryDirectory()
        defer { removeTemporary(dir) }
        let (status, output) = try ExecutableServer.run(["--in-memory", "--port", "0", "--menu", write(json, in: dir)])
        #expect(status != 0)
        #expect(output.contains(message), "\(output)")
        #expect(output.contains("menu.json"))
    }

    /// A fruit's `par` (issue 24) reaches the pages through /state; the store does not act on it.
    @Test func aMenuWithParShowsItInState() throws {
        let dir = temporaryDirectory()
        defer { removeTemporary(dir) }
        let withPar = Self.lemonadeMenu.replacingOccurrences(of: "{ \"name\": \"kiwi\" }", with: "{ \"name\": \"kiwi\", \"par\": 40 }")
        let server = try ExecutableServer(["--in-memory", "--http-port", "0", "--menu", write(withPar, in: dir)])
        let state = try HTTPClient.get(port: server.httpPort, "/state").json()
        let fruits = try #require(state["fruits"] as? [[String: Any]])
        #expect(fruits.map { $0["par"] as? Int } == [nil, nil, 40])
        #expect(fruits.map { $0.keys.contains("par") } == [false, false, true])
        #expect(try server.client().command("STOCK kiwi") == "OK STOCK seq=0 kiwi=10")
        #expect(server.terminate() == 0)
    }

    /// A name that begins with a combining mark merged with the space before it in the journal,
    /// so the server wrote a snapshot it could not read back and then never started again. Such a
    /// name is now refused when the menu is loaded, before anything is written.
    @Test func aNameThatWouldNotRoundTripIsRefusedAtLoad() throws {
        let dir = temporaryDirectory()
        defer { removeTemporary(dir) }
        let menu = write("""
            { "fruits": [ { "name": "\\u0301kiwi" } ], "juices": [ { "name": "k", "recipe": [ { "fruit": "\\u0301kiwi", "amount": 1 } ] } ] }
            """, in: dir)
        let (status, output) = try ExecutableServer.run(["--data", dir + "/data", "--port", "0", "--menu", menu])
        #expect(status == 2)
        #expect(output.contains("menu file \(menu): fruits[0] \"\u{301}kiwi\": the name \"\u{301}kiwi\" begins with U+0301"), "\(output)")
        #expect(!FileManager.default.fileExists(atPath: dir + "/data/snapshot"))
    }

    @Test func dataDirectoryRemembersItsMenuAndRefusesToDropStockedFruit() throws {
        let dir = temporaryDirectory()
        defer { removeTemporary(dir) }
        let data = dir + "/data"
        var server = try ExecutableServer(["--data", data])
        #expect(try server.client().command("SET pineapple 0").hasPrefix("OK SET"))
        #expect(server.terminate() == 0)
        #expect(FileManager.default.fileExists(atPath: data + "/menu.json"))

        // The lemonade menu drops strawberry and banana, which still have stock (and pineapple, which has none).
        let menu = write(Self.lemonadeMenu, in: dir)
        let (status, output) = try ExecutableServer.run(["--data", data, "--port", "0", "--menu", menu])
        #expect(status != 0)
        #expect(output.contains("strawberry=10") && output.contains("banana=10") && !output.contains("pineapple=0"), "\(output)")
        #expect(output.contains("--accept-menu-change"))

        // Accepted: the new menu is used; kept fruits keep their stock and seq goes on.
        server = try ExecutableServer(["--data", data, "--menu", menu, "--accept-menu-change"])
        let c = try server.client()
        #expect(try c.command("STOCK") == "OK STOCK seq=1 lemon=6 mango=10 kiwi=10")
        #expect(try c.command("ORDER mango-kiwi") == "OK ORDER mango-kiwi 1 seq=2 mango=8 kiwi=9")
        #expect(server.terminate() == 0)

        // Adding a fruit and a juice just works; going back to the default menu would drop the
        // lemons still in stock, so that is refused.
        let bigger = Self.lemonadeMenu
            .replacingOccurrences(of: "{ \"name\": \"kiwi\" }", with: "{ \"name\": \"kiwi\" }, { \"name\": \"banana\" }")
            .replacingOccurrences(of: "\"juices\": [", with: "\"juices\": [ { \"name\": \"banana\", \"recipe\": [ { \"fruit\": \"banana\", \"amount\": 2 } ] },")
        server = try ExecutableServer(["--data", data, "--menu", write(bigger, in: dir, name: "bigger.json")])
        #expect(try server.client().command("STOCK") == "OK STOCK seq=2 lemon=6 mango=8 kiwi=9 banana=10")
        #expect(server.terminate() == 0)
        let (refused, message) = try ExecutableServer.run(["--data", data, "--port", "0"])
        #expect(refused != 0 && message.contains("lemon=6"))
        server = try ExecutableServer(["--data", data, "--menu", write(bigger, in: dir, name: "bigger.json")])
        #expect(try server.client().command("STOCK mango") == "OK STOCK seq=2 mango=8")
        #expect(server.terminate() == 0)
    }
}

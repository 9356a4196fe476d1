import Testing
@testable import JuiceBoard
import JuiceScreen
import JuiceCore

@Suite(.onOwnThreads) struct ParsingTests {
    @Test func menuRecipesInMenuOrder() throws {
        let line = ServerLine.parse(ServerLines.menu + "\r")
        guard case .ok(let verb, let fields) = line else { Issue.record("not OK: \(line)"); return }
        #expect(verb == "MENU")
        let menu = try #require(WireReader.menu(fields: fields))
        #expect(menu.juices.map(\.name) == ["strawberry", "banana", "kiwi", "pineapple", "strawberry-banana", "mango", "mango-kiwi"])
        #expect(menu.juices[4].recipe.map { "\(menu.fruits[$0.fruit].name):\($0.amount)" } == ["strawberry:10", "banana:1"])
        // The MENU line names only the fruits the recipes use, in order of first appearance.
        #expect(menu.fruits.map(\.name) == ["strawberry", "banana", "kiwi", "pineapple", "mango"])
        #expect(menu.thirstiestAmount(of: "strawberry") == 16)
        #expect(menu.thirstiestAmount(of: "banana") == 2)
        #expect(menu.thirstiestAmount(of: "mango") == 3)
        #expect(menu.thirstiestAmount(of: "durian") == 0)
    }

    @Test func malformedMenuIsRejectedWhole() {
        #expect(WireReader.menu(fields: ["a=b:1", "broken"]) == nil)
        #expect(WireReader.menu(fields: ["a=b:x"]) == nil)
        #expect(WireReader.menu(fields: ["=b:1"]) == nil)
        // An empty MENU reply is no menu: the board keeps showing none.
        #expect(WireReader.menu(fields: []) == nil)
    }

    @Test func aliasesByKindWithEmptyAndMultiple() {
        let aliases = Aliases.parse(fields: ["fruit:kiwi=키위", "fruit:plum=", "juice:mango-kiwi=mk,망키쥬스", "vat:x=y", "junk"])
        #expect(aliases.fruit["kiwi"] == ["키위"])
        #expect(aliases.fruit["plum"] == [])
        #expect(aliases.juice["mango-kiwi"] == ["mk", "망키쥬스"])
        #expect(aliases.juice["x"] == nil)
    }

    @Test func koreanNamePrefersNonASCIIAlias() {
        #expect(Aliases.preferred(["mk", "망키쥬스"], for: "mango-kiwi", language: .korean) == "망키쥬스")
        #expect(Aliases.preferred(["mk", "mkj"], for: "mango-kiwi", language: .korean) == "mk")
        #expect(Aliases.preferred([], for: "plum", language: .korean) == nil)
        #expect(Aliases.preferred(nil, for: "plum", language: .korean) == nil)
        #expect(Aliases.preferred(["plum"], for: "plum", language: .korean) == nil)
        #expect(Aliases.preferred(["망키쥬스"], for: "mango-kiwi", language: .english) == nil)
    }

    @Test func stockReplyAndEvents() {
        #expect(ServerLine.parse("OK STOCK seq=3 kiwi=1 mango=0\r\n")
                == .ok(verb: "STOCK", fields: ["seq=3", "kiwi=1", "mango=0"]))
        #expect(StockUpdate.parse(fields: ["seq=3", "kiwi=1", "mango=0"])
                == StockUpdate(seq: 3, values: [("kiwi", 1), ("mango", 0)]))
        #expect(ServerLine.parse("EVENT STOCK seq=58 banana=884\r")
                == .stockEvent(StockUpdate(seq: 58, values: [("banana", 884)])))
        #expect(StockUpdate.parse(fields: ["kiwi=1"]) == nil)
        #expect(StockUpdate.parse(fields: ["seq=x"]) == nil)
        #expect(StockUpdate.parse(fields: ["seq=1", "kiwi"]) == nil)
    }

    @Test func otherLines() {
        #expect(ServerLine.parse(ServerLines.hello) == .hello("juice-server 1.0.0 protocol=1 type HELP for commands"))
        #expect(ServerLine.parse("EVENT BYE shutting down") == .bye("shutting down"))
        #expect(ServerLine.parse("ERR UNKNOWN_COMMAND what is FLY") == .err(code: "UNKNOWN_COMMAND", message: "what is FLY"))
        #expect(ServerLine.parse("OK PONG") == .ok(verb: "PONG", fields: []))
        #expect(ServerLine.parse("OK SINCE 57 60") == .ok(verb: "SINCE", fields: ["57", "60"]))
        #expect(ServerLine.parse("EVENT PARTY now") == .otherEvent("EVENT PARTY now"))
        #expect(ServerLine.parse("") == .unknown(""))
    }

    @Test func plainLineHasEveryFruitInMenuOrder() {
        let state = renderState([0, 9, 10, 9, 8], seq: 42)
        #expect(PlainFormat.line(state.snapshot!) == "seq=42 strawberry=0 banana=9 pineapple=10 kiwi=9 mango=8")
    }
}

@Suite(.onOwnThreads) struct CanMakeTests {
    let menu = WireReader.menu(fields: ServerLine.fields(of: ServerLines.menu, dropping: 2))!
    func servings(_ juice: String, _ stock: [String: Int]) -> Int {
        menu.servings(of: menu.juices.first { $0.name == juice }!, from: stock)
    }

    @Test func singleFruitRecipes() {
        #expect(servings("banana", ["banana": 9]) == 4)
        #expect(servings("strawberry", ["strawberry": 15]) == 0)
        #expect(servings("strawberry", ["strawberry": 16]) == 1)
        #expect(servings("strawberry", ["strawberry": 33]) == 2)
    }

    @Test func twoFruitRecipesAreLimitedByTheScarcerFruit() {
        #expect(servings("strawberry-banana", ["strawberry": 30, "banana": 2]) == 2)
        #expect(servings("strawberry-banana", ["strawberry": 30, "banana": 100]) == 3)
        #expect(servings("strawberry-banana", ["strawberry": 9, "banana": 100]) == 0)
        #expect(servings("mango-kiwi", ["mango": 7, "kiwi": 2]) == 2)
        #expect(servings("mango-kiwi", ["mango": 7, "kiwi": 0]) == 0)
    }

    @Test func missingFruitOrEmptyRecipeCannotBeMade() {
        #expect(servings("mango-kiwi", ["mango": 7]) == 0)
        // A recipe with no usable ingredient is refused when the menu is read, so the board
        // never counts servings of it (rather than showing it as "infinitely" available).
        #expect(WireReader.menu(fields: ["air="]) == nil)
        #expect(WireReader.menu(fields: ["odd=kiwi:0"]) == nil)
    }

    @Test func lowStockIsBelowTheThirstiestRecipe() {
        let state = renderState([15, 1, 2, 3, 0])
        #expect(state.isLow("strawberry"))      // 15 < 16
        #expect(state.isLow("banana"))          // 1 < 2
        #expect(!state.isLow("pineapple"))      // 2 == 2
        #expect(!state.isLow("kiwi"))           // 3 == 3
        #expect(!state.isLow("mango"))          // 0 is sold out, not low
    }
}

@Suite(.onOwnThreads) struct OptionsTests {
    @Test func defaults() throws {
        let options = try BoardOptions.parse([])
        #expect(options.host == "127.0.0.1" && options.port == 7878 && !options.plain && options.language == .english && options.color)
        #expect(options.serverAddress == "127.0.0.1:7878")
    }

    @Test func everyOption() throws {
        let options = try BoardOptions.parse(["--host", "localhost", "--port=9000", "--lang", "ko", "--plain", "--no-color"])
        #expect(options.host == "localhost" && options.port == 9000 && options.plain && options.language == .korean && !options.color)
        #expect(try BoardOptions.parse([], environment: ["NO_COLOR": "1"]).color == false)
        #expect(try BoardOptions.parse(["--host", "::1"]).serverAddress == "[::1]:7878")
    }

    @Test func mistakesAreReported() {
        #expect(throws: BoardOptions.ParseError.self) { try BoardOptions.parse(["--port"]) }
        #expect(throws: BoardOptions.ParseError.self) { try BoardOptions.parse(["--port", "0"]) }
        #expect(throws: BoardOptions.ParseError.self) { try BoardOptions.parse(["--port", "70000"]) }
        #expect(throws: BoardOptions.ParseError.self) { try BoardOptions.parse(["--lang", "fr"]) }
        #expect(throws: BoardOptions.ParseError.self) { try BoardOptions.parse(["--fast"]) }
    }

    /// The words of each mistake name the flag, as juice-server's and juice-bench's do; a flag
    /// without a value refuses one (`--plain=no` used to turn plain mode on).
    @Test(arguments: [
        (["--port"], "--port needs a value"),
        (["--port", "0"], "--port must be 1 to 65535, not '0'"),
        (["--port=+80"], "--port must be 1 to 65535, not '+80'"),
        (["--plain=no"], "--plain takes no value, not 'no'"),
        (["--no-color=1"], "--no-color takes no value, not '1'"),
        (["--fast"], "unknown option --fast"),
        (["127.0.0.1"], "unexpected argument '127.0.0.1'"),
    ])
    func mistakesSayWhichFlag(arguments: [String], message: String) {
        #expect(throws: OptionParseError(description: message)) { try BoardOptions.parse(arguments) }
    }

    @Test func helpAnywhereIsHelp() throws {
        #expect(try BoardOptions.parse(["--fast", "--help"]).showHelp)
        #expect(try BoardOptions.parse(["--port", "1", "-h"]).showHelp)
    }

    @Test func backoffDoublesUpToTheCapAndResets() {
        var backoff = Backoff(initial: 0.1, cap: 3)
        let delays = (0..<8).map { _ in backoff.nextDelay() }
        #expect(delays == [0.1, 0.2, 0.4, 0.8, 1.6, 3, 3, 3])
        backoff.reset()
        #expect(backoff.nextDelay() == 0.1)
    }
}

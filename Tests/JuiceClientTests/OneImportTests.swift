import Foundation
import Testing
import JuiceClient // and no JuiceCore: every type named below must come through JuiceClient

/// A program that imports only JuiceClient can name everything the API returns or takes, and
/// every value prints as one short line a person can read (the default reflection dumps the
/// menu's tables).
@Suite(.onOwnThreads) struct OneImportTests {
    @Test(.timeLimit(.minutes(2)))
    func everyReturnedTypeIsNamedWithOneImport() async throws {
        // A clock that stands still: the void below is of today's sales, and the sale must not
        // become yesterday's (at the shop's day start) before it.
        let clock = try StillClock()
        let server = try ExecutableServer(["--in-memory", "--initial-stock", "10"], environment: clock.environment)
        let configuration: JuiceClient.Configuration = .init(port: UInt16(server.port))
        let shop = JuiceClient(configuration: configuration)
        defer { shop.close() }
        let state: ShopState = try await shop.state()
        let menu: Menu = state.menu
        let fruits: [Fruit] = menu.fruits
        let juices: [Juice] = menu.juices
        let recipe: [Ingredient] = juices[0].recipe
        let aliases: MenuAliases = state.aliases
        let snapshot: StockUpdate = state.snapshot
        let stats: Stats = try await shop.stats()
        let journal: JournalCounts? = stats.journal
        let sale: OrderResult = try await shop.order("kiwi", count: 1)
        let change: (seq: Int, total: Int) = try await shop.set("kiwi", 5)
        var updates = shop.stock().makeAsyncIterator()
        let first: ShopUpdate? = await updates.next()
        var sync = StockSync()
        let greeting: ServerLine = ServerLine.parse("EVENT HELLO juice-server 1\r\n")
        let output: StockSync.Output = sync.receive(greeting)
        var backoff = Backoff(initial: 1, cap: 2)
        #expect(fruits.count == state.fruits.count && !recipe.isEmpty && !aliases.fruit.isEmpty)
        #expect(menu.fruitIndex("KIWI").map { fruits[$0].name } == "kiwi" && menu.juiceIndex("mango-kiwi") != nil)
        #expect(snapshot.seq == 0 && stats.ordersServed == 0 && journal == nil && !output.commands.isEmpty)
        #expect(sale == .made(seq: 1, stock: ["kiwi": 7], amount: 4500))
        #expect(change.seq == 2 && change.total == 5)
        #expect(first.map { "\($0)" } == "full seq 2: strawberry=10 banana=10 pineapple=10 kiwi=5 mango=10; 7 juices")
        #expect(backoff.nextDelay() == 1 && backoff.nextDelay() == 2)

        // Money: the prices, their currency, a void's reason and its result.
        let prices: Prices = try await shop.prices()
        let currency: Currency? = prices.currency
        let reason: VoidReason = .wrongJuice
        let voided: VoidResult = try await shop.void(sale: 1, reason: reason)
        #expect(currency?.format(4500) == "₩4,500" && voided.amount == 4500 && voided.stock == ["kiwi": 8])
    }

    /// The value types the API returns can be built by a program too (a till's own tests, a
    /// preview), and a menu it gets wrong says why.
    @Test func returnedValuesAreBuiltWithOneImport() throws {
        let menu = try Menu(fruits: [Fruit(name: "kiwi")], juices: [Juice(name: "kiwi", recipe: [Ingredient(fruit: 0, amount: 3)])])
        let state = ShopState(menu: menu, aliases: MenuAliases.none, fruits: ["kiwi"], stock: ["kiwi": 7], seq: 2)
        var journal = JournalCounts.zero
        journal.syncs = 1
        let stats = Stats(clients: 1, uptimeSeconds: 0, seq: 2, ordersServed: 0, ordersRefused: 0,
                          sold: [0], lost: [0], short: [0], keys: 0, journal: journal)
        #expect(state.canMake("kiwi") == 2 && state.snapshot == StockUpdate(seq: 2, values: [("kiwi", 7)]))
        #expect(stats.journal?.syncs == 1)
        #expect(throws: MenuError.self) { try Menu(fruits: [], juices: []) }
    }

    /// JuiceCore's `public` surface is exactly what JuiceClient names: everything else there is
    /// `package` (the server's parsers, encoders, journal records, ledger). The sources are read,
    /// since a type made `public` by mistake compiles and passes every other test.
    @Test func juiceCoreMakesPublicOnlyWhatTheClientNames() throws {
        let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Sources")
        let names = try String(contentsOf: sources.appendingPathComponent("JuiceClient/Names.swift"), encoding: .utf8)
        let named = Set(names.split(separator: "\n").compactMap { line -> String? in
            guard line.hasPrefix("public typealias "), let dot = line.range(of: "= JuiceCore.") else { return nil }
            return String(line[dot.upperBound...])
        })
        #expect(named.count >= 10, "no typealiases found in \(sources.path)/JuiceClient/Names.swift")
        let core = sources.appendingPathComponent("JuiceCore")
        let files = try FileManager.default.contentsOfDirectory(atPath: core.path).filter { $0.hasSuffix(".swift") }
        #expect(files.count > 20, "the JuiceCore sources were not found at \(core.path)")
        var outside: [String] = []
        for file in files {
            // Each `public` line belongs to the top-level declaration (a type or an extension)
            // last opened at the start of a line.
            var owner = ""
            let text = try String(contentsOf: core.appendingPathComponent(file), encoding: .utf8)
            for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                if line.drop(while: { $0 == " " }).hasPrefix("//") { continue }
                let words = line.split(separator: " ")
                if let kind = words.firstIndex(where: { ["struct", "enum", "class", "actor", "protocol", "extension"].contains($0) }),
                   !line.hasPrefix(" "), !line.hasPrefix("/"), kind + 1 < words.count {
                    owner = String(words[kind + 1].prefix { $0.isLetter || $0.isNumber || $0 == "_" })
                }
                if words.contains("public") && !named.contains(owner) { outside.append("\(file):\(number + 1) (\(owner))") }
            }
        }
        #expect(outside.isEmpty, "public but not named by JuiceClient: \(outside)")
    }

    @Test(.timeLimit(.minutes(2)))
    func valuesPrintAsOneShortLine() async throws {
        let server = try ExecutableServer(["--in-memory", "--initial-stock", "10"])
        let shop = client(server)
        defer { shop.close() }
        var updates = shop.stock().makeAsyncIterator()
        let first = try #require(await updates.next())
        let sale = try await shop.order("mango-kiwi", count: 2)
        let change = try #require(await updates.next())
        let state = try await shop.state()
        let refused = try await shop.order("kiwi", count: 20)
        var error = JuiceError.closed
        do { _ = try await shop.order("durian") } catch let thrown as JuiceError { error = thrown }

        let stock = "strawberry=10 banana=10 pineapple=10 kiwi=8 mango=6"
        #expect("\(state)" == "seq 1: \(stock); 7 juices")
        #expect(String(reflecting: state) == "ShopState(seq 1: \(stock); 7 juices)")
        #expect("\(first)".hasPrefix("full seq 0: strawberry=10 "))
        #expect(String(reflecting: first).hasPrefix("ShopUpdate.full(seq 0: strawberry=10 ") && String(reflecting: first).hasSuffix(", resync: false)"))
        #expect("\(change)" == "change seq 1: kiwi=8 mango=6")
        #expect(String(reflecting: change) == "ShopUpdate.change(seq: 1, changed: kiwi=8 mango=6)")
        #expect("\(sale)" == "made (seq 1): kiwi=8 mango=6 left, amount 11000")
        #expect(String(reflecting: sale) == "OrderResult.made(seq: 1, stock: kiwi=8 mango=6, amount: 11000)")
        #expect("\(refused)" == "out of stock: needs kiwi=60, has kiwi=8")
        #expect("\(error)".hasPrefix("UNKNOWN_JUICE "))
        #expect(String(reflecting: error).hasPrefix("JuiceError.unknownJuice: UNKNOWN_JUICE "))
        #expect(String(reflecting: JuiceError.closed) == "JuiceError.closed: the client was closed")
        #expect(String(reflecting: JuiceError.orderInDoubt(key: "k-1", reason: "gone")).hasPrefix("JuiceError.orderInDoubt: the order may"))
        #expect("\(ShopUpdate.offline(attempt: 2, reason: "refused"))" == "offline (attempt 2): refused")
        for value in ["\(first)", String(reflecting: first), "\(state)", String(reflecting: error)] {
            #expect(value.count < 200 && !value.contains("\n"), "\(value)")
        }
    }
}

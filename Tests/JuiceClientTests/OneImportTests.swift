import Testing
import JuiceClient // and no JuiceCore: every type named below must come through JuiceClient

/// A program that imports only JuiceClient can name everything the API returns, and every value
/// prints as one short line a person can read (the default reflection dumps the menu's tables).
@Suite(.onOwnThreads) struct OneImportTests {
    @Test(.timeLimit(.minutes(2)))
    func everyReturnedTypeIsNamedWithOneImport() async throws {
        let server = try ExecutableServer(["--in-memory"])
        let shop = client(server)
        defer { shop.close() }
        let state: ShopState = try await shop.state()
        let menu: Menu = state.menu
        let fruits: [Fruit] = menu.fruits
        let juices: [Juice] = menu.juices
        let recipe: [Ingredient] = juices[0].recipe
        let aliases: MenuAliases = state.aliases
        let snapshot: StockUpdate = state.snapshot
        let stats: StatsValues = try await shop.stats()
        let journal: JournalCounts? = stats.journal
        var sync = StockSync()
        let greeting: ServerLine = .hello("juice-server 1")
        let output: StockSync.Output = sync.receive(greeting)
        #expect(fruits.count == state.fruits.count && !recipe.isEmpty && !aliases.fruit.isEmpty)
        #expect(snapshot.seq == 0 && stats.ordersServed == 0 && journal == nil && !output.commands.isEmpty)
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
        #expect("\(sale)" == "made (seq 1): kiwi=8 mango=6 left")
        #expect(String(reflecting: sale) == "OrderResult.made(seq: 1, stock: kiwi=8 mango=6)")
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

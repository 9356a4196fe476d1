import JuiceCore
import JuicePlatform

/// The run's own connection for setup and for the final reading of the store: greeting read,
/// events off, one command and its reply at a time. Used only while nothing is being killed,
/// so a failure here is a failure of the run, not chaos.
final class ControlClient {
    private let link: ChaosLink

    init(_ address: SocketAddress) throws(BenchError) {
        do {
            link = try ChaosLink(to: address, timeout: 10)
            let hello = try link.readLine(timeout: 30)
            guard hello.hasPrefix("EVENT HELLO") else { throw BenchError.fatal("the server greeted with '\(hello)'") }
        } catch let failure as LinkFailure {
            throw BenchError.fatal("cannot reach the server at \(address): \(failure)")
        } catch let error as BenchError {
            throw error
        } catch {
            throw BenchError.fatal("\(error)")
        }
        _ = try command("EVENTS OFF")
    }

    /// Sends `line`; its reply (events pushed meanwhile are skipped).
    func command(_ line: String) throws(BenchError) -> String {
        do {
            guard link.send(line + "\r\n") else { throw LinkFailure.closed }
            while true {
                let reply = try link.readLine(timeout: 60)
                if !reply.hasPrefix("EVENT ") { return reply }
            }
        } catch {
            throw BenchError.fatal("'\(line)' got no reply: \(error)")
        }
    }

    /// The whole menu (MENU, then MENU ALIASES for every fruit in menu order).
    func menu() throws(BenchError) -> Menu {
        let recipes = try command("MENU"), aliases = try command("MENU ALIASES")
        guard case .ok("MENU", let fields) = ServerLine.parse(recipes),
              case .ok("MENU", let aliasFields) = ServerLine.parse(aliases), aliasFields.first == "ALIASES",
              let menu = WireReader.menu(fields: fields, aliases: MenuAliases.parse(fields: Array(aliasFields.dropFirst()))) else {
            throw BenchError.fatal("cannot read the menu: '\(recipes)' / '\(aliases)'")
        }
        return menu
    }

    /// `STATS` and `STOCK` as the figures the checker compares.
    func figures(_ menu: Menu) throws(BenchError) -> StoreFigures {
        let statsLine = try command("STATS"), stockLine = try command("STOCK")
        guard case .ok("STATS", let fields) = ServerLine.parse(statsLine),
              let stats = WireReader.stats(fields: fields, menu: menu),
              case .ok("STOCK", let stockFields) = ServerLine.parse(stockLine),
              let stock = StockUpdate.parse(fields: stockFields) else {
            throw BenchError.fatal("cannot read the store's figures: '\(statsLine)' / '\(stockLine)'")
        }
        var sold: [String: Int] = [:]
        for (juice, count) in zip(menu.juices, stats.sold) { sold[juice.name] = Int(count) }
        return StoreFigures(seq: Int(stats.seq), ordersServed: Int(stats.ordersServed), ordersRefused: Int(stats.ordersRefused),
                            sold: sold, stock: Dictionary(stock.values.map { ($0.fruit, $0.count) }, uniquingKeysWith: { $1 }),
                            keys: stats.keys)
    }
}

extension Menu {
    /// Recipes by juice name, for the checker.
    var recipesByName: [String: [(fruit: String, amount: Int)]] {
        Dictionary(juices.map { juice in (juice.name, juice.recipe.map { (fruits[$0.fruit].name, $0.amount) }) },
                   uniquingKeysWith: { first, _ in first })
    }

    /// What the tills order: every juice but one whose single fruit is set to 0 at the start, so
    /// that its orders are always refused (the flood's juice, and the tills' refusals). The one
    /// chosen is the juice whose fruit the fewest other juices use.
    var chaosChoice: (choice: OrderChoice, refusedFruit: String?) {
        let users = { (fruit: Int) in self.juices.filter { $0.recipe.contains { $0.fruit == fruit } }.count }
        let candidates = juices.filter { $0.recipe.count == 1 && juices.count - users($0.recipe[0].fruit) >= 1 }
        guard let refused = candidates.min(by: { users($0.recipe[0].fruit) < users($1.recipe[0].fruit) }) else {
            return (OrderChoice(juices: juices.map(\.name), refusedJuice: nil), nil)
        }
        let fruit = refused.recipe[0].fruit
        let others = juices.filter { !$0.recipe.contains { $0.fruit == fruit } }.map(\.name)
        return (OrderChoice(juices: others, refusedJuice: refused.name), fruits[fruit].name)
    }
}

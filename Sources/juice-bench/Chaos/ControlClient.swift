import JuiceCore
import JuicePlatform

/// The run's own connection for setup and for the final reading of the store: greeting read,
/// events off, signed in as the manager when given the token (REPORT is the manager's), one
/// command and its reply at a time. Used only while nothing is being killed,
/// so a failure here is a failure of the run, not chaos.
final class ControlClient {
    private let link: ChaosLink

    init(_ address: SocketAddress, token: String? = nil) throws(BenchError) {
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
        if let token {
            let reply = try command("AUTH \(token)")
            guard reply.hasPrefix("OK") else { throw BenchError.fatal("the run's manager token was refused: \(reply)") }
        }
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

    /// Each juice's price (`MENU PRICES`); empty for a menu without prices.
    func prices() throws(BenchError) -> [String: Int] {
        let line = try command("MENU PRICES")
        guard case .ok("MENU", let fields) = ServerLine.parse(line), let list = WireReader.prices(fields: fields) else {
            throw BenchError.fatal("cannot read the prices: '\(line)'")
        }
        return Dictionary(list.prices.map { ($0.juice, $0.price) }, uniquingKeysWith: { first, _ in first })
    }

    /// `STATS`, `STOCK` and `REPORT` as the figures the checker compares. REPORT is the business
    /// day's: a run that crosses into the next day (the shop's day start) reads the day it began
    /// (`since`, its `date=`) too and adds them, so the money of the whole run is counted.
    func figures(_ menu: Menu, since: String? = nil) throws(BenchError) -> (figures: StoreFigures, date: String) {
        let statsLine = try command("STATS"), stockLine = try command("STOCK")
        guard case .ok("STATS", let fields) = ServerLine.parse(statsLine),
              let stats = WireReader.stats(fields: fields, menu: menu),
              case .ok("STOCK", let stockFields) = ServerLine.parse(stockLine),
              let stock = StockUpdate.parse(fields: stockFields) else {
            throw BenchError.fatal("cannot read the store's figures: '\(statsLine)' / '\(stockLine)'")
        }
        var sold: [String: Int] = [:]
        for (juice, count) in zip(menu.juices, stats.sold) { sold[juice.name] = Int(count) }
        var figures = StoreFigures(seq: Int(stats.seq), ordersServed: Int(stats.ordersServed), ordersRefused: Int(stats.ordersRefused),
                                   sold: sold, stock: Dictionary(stock.values.map { ($0.fruit, $0.count) }, uniquingKeysWith: { $1 }),
                                   keys: stats.keys)
        let today = try report(nil, menu: menu, into: &figures)
        if let since, since != today { _ = try report(since, menu: menu, into: &figures) }
        return (figures, since ?? today)
    }

    /// Adds one day's `REPORT` (today's for nil) to `figures`; its date.
    private func report(_ date: String?, menu: Menu, into figures: inout StoreFigures) throws(BenchError) -> String {
        let line = try command(date.map { "REPORT \($0)" } ?? "REPORT")
        let values = WireReader.integers(in: line)
        guard line.hasPrefix("OK REPORT date="), let voids = values["voids"],
              let day = line.split(separator: " ").first(where: { $0.hasPrefix("date=") })?.dropFirst(5) else {
            throw BenchError.fatal("cannot read the day's report: '\(line)'")
        }
        figures.voids += voids
        for juice in menu.juices { figures.voided[juice.name, default: 0] += values["voided_" + juice.name] ?? 0 }
        if let takings = values["takings"] { figures.takings = (figures.takings ?? 0) + takings }
        if let voided = values["voided_amount"] { figures.voidedAmount = (figures.voidedAmount ?? 0) + voided }
        return String(day)
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

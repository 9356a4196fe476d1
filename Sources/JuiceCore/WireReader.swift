/// Reads the fields of particular replies, the inverse of `Wire`: what a client (juice-board,
/// juice-bench, the tests) needs from `OK MENU`, `OK MENU ALIASES`, `OK SINCE`, `OK STATS` and
/// `seq=`. `fields` are the space-separated words after the verb, as `ServerLine.ok` gives them.
/// Readers are strict where a wrong value would mislead (a malformed menu is nil, never a wrong
/// menu) and lenient about what may be added later (unknown alias kinds, new STATS keys).
package enum WireReader {
    /// The number of the first `seq=<digits>` word (at the start of the line or after a space),
    /// nil when there is none or it has no digits. Byte-level and allocation-free: juice-bench
    /// calls it on every reply and event it receives, on bytes still in its receive buffer.
    @inlinable
    package static func seq(in line: UnsafeRawBufferPointer) -> UInt64? {
        let length = line.count
        var i = 0
        while i + 4 < length {
            if line[i] == 0x73 /* s */ && line[i + 1] == 0x65 /* e */ && line[i + 2] == 0x71 /* q */
                && line[i + 3] == 0x3D /* = */ && (i == 0 || line[i - 1] == 0x20 /* space */) {
                var j = i + 4
                var value: UInt64 = 0
                while j < length && line[j] >= 0x30 && line[j] <= 0x39 {
                    value = value &* 10 &+ UInt64(line[j] &- 0x30)
                    j += 1
                }
                return j > i + 4 ? value : nil
            }
            i += 1
        }
        return nil
    }

    /// `seq(in:)` for a line already held as a String.
    package static func seq(in line: String) -> UInt64? {
        var line = line
        return line.withUTF8 { seq(in: UnsafeRawBufferPointer($0)) }
    }

    /// Every `key=integer` word of a line (`seq`, fruits, STATS counters); other words are skipped.
    package static func integers(in line: String) -> [String: Int] {
        var out: [String: Int] = [:]
        for (key, value) in pairs(line.split(separator: " ")) {
            if let v = Int(value) { out[key] = v }
        }
        return out
    }

    /// The `key=value` words of a list of fields, in order; words without `=` are skipped.
    package static func pairs(_ fields: [Substring]) -> [(key: String, value: String)] {
        fields.compactMap { field in
            guard let eq = field.firstIndex(of: "="), eq != field.startIndex else { return nil }
            return (String(field[..<eq]), String(field[field.index(after: eq)...]))
        }
    }

    /// `OK MENU juice=fruit:amount+fruit:amount ...`, after the verb: a `Menu` whose fruits are
    /// those the recipes name, in order of first appearance (the MENU line does not list fruits
    /// no recipe uses; `menu(fields:aliases:)` adds them). Nil if any field is malformed or the
    /// menu would be invalid (see `Menu.init`), and for an empty menu.
    package static func menu(fields: [Substring]) -> Menu? {
        menu(fields: fields, fruitOrder: [], aliases: nil)
    }

    /// The whole menu from the MENU and MENU ALIASES replies: the aliases line lists every fruit
    /// in menu order, with every name's aliases.
    package static func menu(fields: [Substring], aliases: MenuAliases) -> Menu? {
        menu(fields: fields, fruitOrder: aliases.fruitOrder, aliases: aliases)
    }

    /// A whole `OK MENU ...` line; nil if it is not one.
    package static func menu(line: String) -> Menu? {
        guard case .ok("MENU", let fields) = ServerLine.parse(line), fields.first != "ALIASES" else { return nil }
        return menu(fields: fields)
    }

    private static func menu(fields: [Substring], fruitOrder: [String], aliases: MenuAliases?) -> Menu? {
        var fruitNames = fruitOrder
        var index: [String: Int] = [:]
        for (i, name) in fruitNames.enumerated() { index[name] = i }
        var juices: [Juice] = []
        for field in fields where !field.isEmpty {
            guard let eq = field.firstIndex(of: "=") else { return nil }
            let name = String(field[..<eq])
            var recipe: [Ingredient] = []
            for part in field[field.index(after: eq)...].split(separator: "+") {
                guard let colon = part.lastIndex(of: ":"),
                      let amount = Int(part[part.index(after: colon)...]) else { return nil }
                let fruit = String(part[..<colon])
                if index[fruit] == nil {
                    index[fruit] = fruitNames.count
                    fruitNames.append(fruit)
                }
                recipe.append(Ingredient(fruit: index[fruit]!, amount: amount))
            }
            juices.append(Juice(name: name, aliases: aliases?.juice[name] ?? [], recipe: recipe))
        }
        let fruits = fruitNames.map { Fruit(name: $0, aliases: aliases?.fruit[$0] ?? []) }
        return try? Menu(fruits: fruits, juices: juices)
    }

    /// `OK SINCE <after> <current>`, after the verb.
    /// The store id in a greeting's text (what follows `EVENT HELLO `): its `store=<id>` token,
    /// or nil from a server that sends none.
    package static func store(hello text: String) -> String? {
        text.split(separator: " ").first { $0.hasPrefix("store=") && $0.count > 6 }.map { String($0.dropFirst(6)) }
    }

    package static func since(fields: [Substring]) -> (after: UInt64, current: UInt64)? {
        guard fields.count == 2, let after = UInt64(fields[0]), let current = UInt64(fields[1]) else { return nil }
        return (after, current)
    }

    /// `OK STATS k=v ...`, after the verb, given the menu its `sold_<juice>`, `lost_<juice>` and
    /// `short_<fruit>` keys follow. Nil if a counter this version sends is missing or not a
    /// number; keys it does not know are ignored.
    package static func stats(fields: [Substring], menu: Menu) -> StatsValues? {
        let values = Dictionary(pairs(fields), uniquingKeysWith: { _, last in last })
        func number<N: FixedWidthInteger>(_ key: String) -> N? { values[key].flatMap { N($0) } }
        guard let clients: Int = number("clients"), let uptime: UInt64 = number("uptime_s"),
              let seq: UInt64 = number("seq"), let served: UInt64 = number("orders_served"),
              let refused: UInt64 = number("orders_refused"), let keys: Int = number("keys"),
              let durable = values["durable"], durable == "yes" || durable == "no" else { return nil }
        func perName(_ prefix: String, _ names: [String]) -> [UInt64]? {
            var list: [UInt64] = []
            for name in names {
                guard let n: UInt64 = number(prefix + name) else { return nil }
                list.append(n)
            }
            return list
        }
        guard let sold = perName("sold_", menu.juices.map(\.name)), let lost = perName("lost_", menu.juices.map(\.name)),
              let short = perName("short_", menu.fruits.map(\.name)) else { return nil }
        var journal: JournalCounts?
        if durable == "yes" {
            guard let syncs: UInt64 = number("journal_syncs"), let records: UInt64 = number("journal_records") else { return nil }
            journal = JournalCounts(syncs: syncs, records: records)
        }
        return StatsValues(clients: clients, uptimeSeconds: uptime, seq: seq, ordersServed: served, ordersRefused: refused,
                           sold: sold, lost: lost, short: short, keys: keys, journal: journal)
    }

    /// A stock update's values as menu positions: nil if it names a fruit the menu does not have.
    package static func fruitValues(_ update: StockUpdate, menu: Menu) -> [FruitValue]? {
        var out: [FruitValue] = []
        for (fruit, count) in update.values {
            guard let i = menu.fruits.firstIndex(where: { $0.name == fruit }) else { return nil }
            out.append(FruitValue(fruit: i, value: count))
        }
        return out
    }
}

/// The aliases of every name, from `OK MENU ALIASES kind:name=alias1,alias2 ...`.
public struct MenuAliases: Equatable, Sendable {
    public var fruit: [String: [String]]
    public var juice: [String: [String]]
    /// The fruits in the order the line lists them: the server's menu order.
    public var fruitOrder: [String]

    public init(fruit: [String: [String]] = [:], juice: [String: [String]] = [:], fruitOrder: [String] = []) {
        self.fruit = fruit
        self.juice = juice
        self.fruitOrder = fruitOrder
    }

    public static let none = MenuAliases()

    /// Parses the fields after `OK MENU ALIASES`: `kind:name=alias1,alias2` (or `kind:name=`).
    /// Unknown kinds and malformed fields are skipped, so the server may add kinds later.
    package static func parse(fields: [Substring]) -> MenuAliases {
        var aliases = MenuAliases()
        for field in fields {
            guard let colon = field.firstIndex(of: ":"),
                  let eq = field[colon...].firstIndex(of: "=") else { continue }
            let kind = field[..<colon]
            let name = String(field[field.index(after: colon)..<eq])
            let names = field[field.index(after: eq)...].split(separator: ",").map(String.init)
            switch kind {
            case "fruit":
                if aliases.fruit.updateValue(names, forKey: name) == nil { aliases.fruitOrder.append(name) }
            case "juice": aliases.juice[name] = names
            default: continue
            }
        }
        return aliases
    }
}

/// How replies and events look on the wire. Each is appended straight into an output buffer.
public enum Wire {
    public static let commandList = "HELP PING MENU [ALIASES] | STOCK [fruit] | ORDER <juice> [count] [key=<token>] | RESTOCK <fruit> <amount> | SET <fruit> <amount> | EVENTS ON|OFF | SINCE <seq> | STATS | AUTH <token> | QUIT"

    /// The greeting, an event so that line-matching clients can skip it like any other push.
    public static func hello(to out: inout [UInt8]) {
        out.append("EVENT HELLO juice-server \(JuiceVersion.current) protocol=1 type HELP for commands")
        out.appendLineEnd()
    }

    /// `OK ORDER mango-kiwi 2 seq=1 mango=6 kiwi=8`, `OK RESTOCK seq=2 kiwi=15`, `OK SET seq=3 kiwi=2`.
    public static func appendReply(for change: Change, menu: Menu, to out: inout [UInt8], lineEnd: Bool = true) {
        switch change.kind {
        case .order(let request):
            out.append(contentsOf: menu.orderReplyPrefixes[request.juice])
            out.append(decimal: request.count)
        case .restock:
            out.append(ascii: "OK RESTOCK")
        case .set:
            out.append(ascii: "OK SET")
        }
        appendValues(seq: change.seq, change.touched, menu: menu, to: &out)
        if lineEnd { out.appendLineEnd() }
    }

    private static let seqFragment: [UInt8] = Array(" seq=".utf8)

    /// `EVENT STOCK seq=<n> fruit=value ...`: the fruits a change touched, in the reply's order.
    public static func appendEvent(seq: UInt64, _ touched: [FruitValue], menu: Menu, to out: inout [UInt8]) {
        out.append(ascii: "EVENT STOCK")
        appendValues(seq: seq, touched, menu: menu, to: &out)
        out.appendLineEnd()
    }

    /// `OK STOCK seq=<n> fruit=value ...` (all fruits, or one).
    public static func appendStock(seq: UInt64, stock: [Int], only fruit: Int?, menu: Menu, to out: inout [UInt8]) {
        out.append(ascii: "OK STOCK")
        appendValues(seq: seq, values(stock, only: fruit), menu: menu, to: &out)
        out.appendLineEnd()
    }

    /// The event that carries every fruit: what `SINCE` sends when its history cannot reach back.
    public static func appendFullEvent(seq: UInt64, stock: [Int], menu: Menu, to out: inout [UInt8]) {
        appendEvent(seq: seq, values(stock, only: nil), menu: menu, to: &out)
    }

    private static func values(_ stock: [Int], only fruit: Int?) -> [FruitValue] {
        if let fruit { return [FruitValue(fruit: fruit, value: stock[fruit])] }
        return stock.enumerated().map { FruitValue(fruit: $0.offset, value: $0.element) }
    }

    private static func appendValues(seq: UInt64, _ touched: [FruitValue], menu: Menu, to out: inout [UInt8]) {
        out.append(contentsOf: seqFragment)
        out.append(decimal: seq)
        for t in touched {
            out.append(contentsOf: menu.fruitFragments[t.fruit])
            out.append(decimal: t.value)
        }
    }

    /// `OK MENU strawberry=strawberry:16 ... mango-kiwi=mango:2+kiwi:1`.
    public static func menuLine(_ menu: Menu) -> String {
        let juices = menu.juices.map { juice in
            juice.name + "=" + juice.recipe.map { "\(menu.fruits[$0.fruit].name):\($0.amount)" }.joined(separator: "+")
        }
        return "OK MENU " + juices.joined(separator: " ")
    }

    /// `OK MENU ALIASES fruit:strawberry=딸기 ... juice:mango-kiwi=망키쥬스` (aliases comma-separated).
    public static func menuAliasesLine(_ menu: Menu) -> String {
        let fruits = menu.fruits.map { "fruit:\($0.name)=\($0.aliases.joined(separator: ","))" }
        let juices = menu.juices.map { "juice:\($0.name)=\($0.aliases.joined(separator: ","))" }
        return "OK MENU ALIASES " + (fruits + juices).joined(separator: " ")
    }
}

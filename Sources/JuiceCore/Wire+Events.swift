/// The event stream (Server-Sent Events) form of a stock change, for browsers' `EventSource`:
///
///     id: 5
///     event: stock
///     data: {"seq":5,"stock":{"mango":6,"kiwi":8}}
///     <blank line>
///
/// `stock` lists the fruits the change touched, exactly as `EVENT STOCK` does; the full state
/// lists every fruit. `id` is the seq, so a browser that reconnects sends it back as
/// `Last-Event-ID`, which the server answers as `SINCE` does, with the store the stream's URL
/// names (`/events?store=<id>`).
extension Wire {
    /// `"<fruit>":` for each fruit of the menu, JSON-encoded once.
    package static func jsonFruitKeys(_ fruits: [Fruit]) -> [[UInt8]] {
        fruits.map { JSONText.memberKey($0.name) }
    }

    private static let seqKey = JSONText.memberKey("seq")
    private static let stockKey = JSONText.memberKey("stock")

    /// `id` is the seq alone (a reader, the conformance kit's among them, takes it as a number);
    /// the store a resume belongs to travels in the stream's URL (`/events?store=<id>`), which
    /// the browser sends again, with `Last-Event-ID`, on every reconnect.
    package static func appendStreamEvent(seq: UInt64, _ touched: [FruitValue], menu: Menu, to out: inout [UInt8]) {
        out.append(ascii: "id: ")
        out.append(decimal: seq)
        out.append(ascii: "\nevent: stock\ndata: {")
        // {"seq":N,"stock":{...}}: the outer object's two members by hand, the stock by JSONText.
        out.append(contentsOf: seqKey)
        out.append(decimal: seq)
        out.append(UInt8(ascii: ","))
        out.append(contentsOf: stockKey)
        let keys = menu.wire.jsonFruitKey
        JSONText.appendObject(touched, key: { keys[$0.fruit] }, value: { $0.value }, to: &out)
        out.append(ascii: "}\n\n")
    }

    /// The full state as one stream message: every fruit.
    package static func appendFullStreamEvent(seq: UInt64, stock: [Int], menu: Menu, to out: inout [UInt8]) {
        appendStreamEvent(seq: seq, stock.enumerated().map { FruitValue(fruit: $0.offset, value: $0.element) }, menu: menu, to: &out)
    }

    /// A comment line: keeps proxies and browsers from timing the stream out.
    package static let streamPing: [UInt8] = Array(": ping\n\n".utf8)
    /// Sent first on every stream: how long a browser waits before reconnecting (ms).
    package static let streamRetry: [UInt8] = Array("retry: 1000\n\n".utf8)
}

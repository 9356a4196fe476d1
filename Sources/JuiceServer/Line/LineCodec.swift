import JuiceCore

/// The line protocol's words for the store's outcomes and events: each a line (`Wire` holds
/// the text), written straight into the connection's output.
struct LineCodec {
    let menu: Menu

    /// One command's reply. `figures` gives what only the server knows, asked only for STATS:
    /// clients connected and seconds up.
    func append(_ outcome: StoreOutcome, figures: () -> (clients: Int, uptimeSeconds: UInt64), to out: inout [UInt8]) {
        switch outcome {
        case .write(let write):
            Wire.appendReply(to: write, menu: menu, to: &out)
        case .stock(let seq, let stock, let only):
            Wire.appendStock(seq: seq, stock: stock, only: only, menu: menu, to: &out)
        case .stats(let stats):
            let (clients, uptime) = figures()
            Wire.stats(stats.values(clients: clients, uptimeSeconds: uptime), menu: menu, to: &out)
        case .report(let report):
            Wire.report(report, to: &out)
        case .since(let plan):
            Wire.sinceHeader(after: plan.after, current: plan.current, to: &out)
            if case .fullState(let all) = plan.start { appendEvent(seq: plan.current, all, to: &out) }
        }
    }

    /// `EVENT STOCK seq=<n> fruit=value ...`.
    func appendEvent(seq: UInt64, _ touched: [FruitValue], to out: inout [UInt8]) {
        Wire.appendEvent(seq: seq, touched, menu: menu, to: &out)
    }
}

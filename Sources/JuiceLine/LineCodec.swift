import JuiceCore
import JuiceDomain
import JuicePlatform
import JuiceLog
import JuiceLoop
import JuiceServices

/// The line protocol's words for the store's outcomes and events: each a line (`Wire` holds
/// the text), written straight into the connection's output. A class: reached on every line
/// through the protocol, a struct holding a `Menu` was copied (its every array retained and
/// released) each time.
package final class LineCodec: Sendable {
    package let menu: Menu

    package init(menu: Menu) {
        self.menu = menu
    }

    /// One command's reply. `figures` gives what only the server knows, asked only for STATS:
    /// clients connected and seconds up.
    package func append(_ outcome: StoreOutcome, figures: () -> (clients: Int, uptimeSeconds: UInt64), presence: TillPresence? = nil,
                to out: inout [UInt8]) {
        switch outcome {
        case .write(let write):
            Wire.appendReply(to: write, menu: menu, to: &out)
        case .stock(let seq, let stock, let only):
            Wire.appendStock(seq: seq, stock: stock, only: only, menu: menu, to: &out)
        case .stats(let ledger, let journal):
            let (clients, uptime) = figures()
            let values = StatsValues(clients: clients, uptimeSeconds: uptime, seq: ledger.seq, ordersServed: ledger.ordersServed,
                                     ordersRefused: ledger.ordersRefused, sold: ledger.sold, lost: ledger.lost, short: ledger.short,
                                     keys: ledger.keys.count, journal: journal)
            Wire.stats(values, menu: menu, to: &out)
        case .report(let report):
            Wire.report(report, to: &out)
        case .since(let plan):
            Wire.sinceHeader(after: plan.after, current: plan.current, to: &out)
            if case .fullState(let all) = plan.start { Wire.appendEvent(seq: plan.current, all, menu: menu, to: &out) }
        case .tills(let tills):
            appendTills(tills, presence: presence, to: &out)
        }
    }

}

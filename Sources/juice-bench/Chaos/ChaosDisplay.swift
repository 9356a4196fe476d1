import JuiceCore
import Synchronization

/// A stock display: follows `EVENT STOCK` on a line connection, and after every lost
/// connection reconnects and sends `SINCE <last seq applied>`, as juice-board does. It records
/// every event it applies; the checker then asks whether it saw each seq once, in order.
/// Events before the `OK SINCE` line that repeat the catch-up are ignored, as PROTOCOL.md's
/// SINCE rule 5 says; every other event is recorded as it came, so a repeat or a gap shows.
// @unchecked: handed to its own thread at the start and used only there.
final class ChaosDisplay: @unchecked Sendable {
    private let run: RunState
    private let fruits: Set<String>
    private var last = 0

    /// `fruits`: every fruit of the menu; an event listing them all is a full state.
    init(run: RunState, fruits: Set<String>) {
        self.run = run
        self.fruits = fruits
    }

    func follow() {
        var backoff = 0.005
        while !run.stopDisplay.load(ordering: .relaxed) {
            do {
                let link = try ChaosLink(to: run.line, timeout: 5)
                run.ledger.update { $0.figures.displayConnections += 1 }
                backoff = 0.005
                try session(link)
            } catch {
                pause(seconds: backoff)
                backoff = min(backoff * 2, 0.2)
            }
        }
    }

    /// One connection: greeting, `SINCE last`, then events until the connection ends or the run
    /// stops the display.
    private func session(_ link: ChaosLink) throws(LinkFailure) {
        let hello = try link.readLine(timeout: 10)
        guard hello.hasPrefix("EVENT HELLO") else { throw .malformed(hello) }
        guard link.send("SINCE \(last)\r\n") else { throw .closed }
        var caughtUpTo: Int?
        var early: [StockUpdate] = []
        while !run.stopDisplay.load(ordering: .relaxed) {
            let text: String
            do {
                text = try link.readLine(timeout: 0.2)
            } catch .timedOut {
                continue
            }
            switch ServerLine.parse(text) {
            case .ok("SINCE", let fields):
                guard let since = WireReader.since(fields: fields) else { throw .malformed(text) }
                caughtUpTo = Int(since.current)
                let repeats = early.filter { $0.seq <= Int(since.current) }.count
                run.ledger.update { $0.figures.displayRepeatsIgnored += repeats }
                for update in early where update.seq > Int(since.current) { apply(update) }
                early = []
            case .stockEvent(let update):
                if caughtUpTo == nil { early.append(update) } else { apply(update) }
            default:
                continue
            }
        }
    }

    private func apply(_ update: StockUpdate) {
        let stock = Dictionary(update.values.map { ($0.fruit, $0.count) }, uniquingKeysWith: { _, last in last })
        // With the default menu no juice uses every fruit, so only a full state lists them all.
        let full = Set(stock.keys) == fruits
        run.ledger.update { $0.display.append(DisplayEvent(seq: update.seq, stock: stock, fullState: full)) }
        last = full ? update.seq : max(last, update.seq)
        run.displaySeq.store(last, ordering: .relaxed)
    }
}

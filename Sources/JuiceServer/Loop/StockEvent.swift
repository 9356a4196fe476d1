import JuiceCore

/// A stock change on its way to the displays: its `EVENT STOCK` line is encoded once and shared
/// by every connection's outbox (the event-stream form is encoded when a browser needs it).
/// `lsn` is the journal position that must be durable before it is sent.
struct StockEvent: Sendable {
    let seq: UInt64
    let lsn: UInt64
    let touched: [FruitValue]
    let line: [UInt8]

    init(_ change: Change, lsn: UInt64, menu: Menu) {
        seq = change.seq
        self.lsn = lsn
        touched = change.touched
        line = StockEvent.line(change, menu: menu)
    }

    /// A change's `EVENT STOCK` line, CRLF included, as `Wire` builds it.
    static func line(_ change: Change, menu: Menu) -> [UInt8] {
        var line: [UInt8] = []
        Wire.appendEvent(seq: change.seq, change.touched, menu: menu, to: &line)
        return line
    }

    /// Its bytes in a client's format.
    func bytes(_ format: EventFormat, menu: Menu) -> [UInt8] {
        switch format {
        case .line:
            return line
        case .stream:
            var out: [UInt8] = []
            Wire.appendStreamEvent(seq: seq, touched, menu: menu, to: &out)
            return out
        }
    }
}

/// How a client takes its events: `EVENT STOCK` lines (the TCP protocol) or event-stream
/// messages (browsers, over HTTP).
enum EventFormat: Sendable {
    case line, stream
}

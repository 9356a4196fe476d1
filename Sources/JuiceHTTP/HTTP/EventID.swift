import JuiceCore
import JuiceDomain
import JuicePlatform
import JuiceLog
import JuiceLoop
import JuiceServices
/// A `Last-Event-ID` the stream can resume from: a bare `<seq>`, as the server's event ids are
/// written (its store, if any, comes from the stream's URL, `/events?store=<id>`), or
/// `<store>:<seq>`. Anything else counts as none: the stream starts with the full state.
package struct EventID: Equatable, Sendable {
    /// The store the seq belongs to; nil for a bare seq.
    package var store: String?
    package var seq: UInt64

    package init(store: String?, seq: UInt64) {
        self.store = store
        self.seq = seq
    }

    package init?(_ text: String) {
        guard let colon = text.lastIndex(of: ":") else {
            guard let seq = HTTPRoutes.seq(text[...]) else { return nil }
            self.init(store: nil, seq: seq)
            return
        }
        let store = String(text[..<colon])
        guard StoreID.isValid(store), let seq = HTTPRoutes.seq(text[text.index(after: colon)...]) else { return nil }
        self.init(store: store, seq: seq)
    }
}

extension FruitStore {
    /// Where a browser's event stream starts: without `Last-Event-ID`, the full state; with it,
    /// as `SINCE` would.
    package func catchUpPlan(resuming lastEventID: EventID?) -> CatchUpPlan {
        catchUpPlan(after: lastEventID?.seq, store: lastEventID?.store)
    }
}

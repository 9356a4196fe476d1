import JuiceCore

/// The last few thousand changes, so a display that reconnects can catch up (`SINCE <seq>`,
/// or a browser's `Last-Event-ID`) instead of missing changes. A ring of consecutive seqs.
struct EventHistory {
    let capacity: Int
    private var events: [StockEvent] = []
    private var head = 0
    /// The seq of the oldest event kept (valid when not empty).
    private var firstSeq: UInt64 = 0

    init(capacity: Int = Limits.historyEvents) {
        self.capacity = capacity
    }

    mutating func append(_ event: StockEvent) {
        if events.isEmpty || firstSeq + UInt64(events.count) != event.seq {
            // Empty, or a gap (a snapshot reload): the history restarts here.
            events = [event]
            head = 0
            firstSeq = event.seq
        } else if events.count < capacity {
            events.append(event)
        } else {
            events[head] = event
            head = (head + 1) % capacity
            firstSeq += 1
        }
    }

    /// Whether every event with seq in (after, current] is kept, so a catch-up can replay them
    /// one by one. False when the history does not reach back that far, or `after` is ahead
    /// of `current` (another store).
    func reaches(after: UInt64, current: UInt64) -> Bool {
        if after == current { return true }
        return after < current && !events.isEmpty && after + 1 >= firstSeq
            && firstSeq + UInt64(events.count) - 1 == current
    }

    /// The event of one seq, or nil if it is not (or no longer) kept.
    func event(seq: UInt64) -> StockEvent? {
        guard !events.isEmpty, seq >= firstSeq, seq - firstSeq < UInt64(events.count) else { return nil }
        return events[(head + Int(seq - firstSeq)) % events.count]
    }
}

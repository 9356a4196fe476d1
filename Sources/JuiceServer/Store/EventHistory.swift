import JuiceCore

/// The last few thousand changes, so a display that reconnects can catch up (`SINCE <seq>`,
/// or a browser's `Last-Event-ID`) instead of missing changes. A ring of consecutive seqs.
///
/// It keeps each change's values (the fruits it touched, with their new values): each protocol
/// writes them in its own form when a client catches up. The array is the change's own, shared
/// with its event: keeping it costs no copy on the order path.
struct EventHistory {
    let capacity: Int
    private var changes: [[FruitValue]] = []
    private var head = 0
    /// The seq of the oldest change kept (valid when not empty).
    private var firstSeq: UInt64 = 0

    init(capacity: Int = Limits.historyEvents) {
        self.capacity = capacity
    }

    mutating func append(seq: UInt64, touched: [FruitValue]) {
        if changes.isEmpty || firstSeq + UInt64(changes.count) != seq {
            // Empty, or a gap (a snapshot reload): the history restarts here.
            changes = [touched]
            head = 0
            firstSeq = seq
        } else if changes.count < capacity {
            changes.append(touched)
        } else {
            changes[head] = touched
            head += 1
            if head == capacity { head = 0 }
            firstSeq += 1
        }
    }

    /// Whether every change with seq in (after, current] is kept, so a catch-up can replay them
    /// one by one. False when the history does not reach back that far, or `after` is ahead
    /// of `current` (another store).
    func reaches(after: UInt64, current: UInt64) -> Bool {
        if after == current { return true }
        return after < current && !changes.isEmpty && after + 1 >= firstSeq
            && firstSeq + UInt64(changes.count) - 1 == current
    }

    /// The fruits one change touched, or nil if it is not (or no longer) kept.
    func touched(seq: UInt64) -> [FruitValue]? {
        guard !changes.isEmpty, seq >= firstSeq, seq - firstSeq < UInt64(changes.count) else { return nil }
        return changes[(head + Int(seq - firstSeq)) % changes.count]
    }

    /// The changes with seq `from` through `through`, in order; nil if `from` is not (or no
    /// longer) kept.
    func touched(from: UInt64, through: UInt64) -> [[FruitValue]]? {
        guard touched(seq: from) != nil else { return nil }
        var out: [[FruitValue]] = []
        var seq = from
        while seq <= through, let values = touched(seq: seq) {
            out.append(values)
            seq += 1
        }
        return out
    }
}

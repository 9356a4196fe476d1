import JuiceCore

/// The last few thousand `EVENT STOCK` lines, so a display that reconnects can catch up with
/// `SINCE <seq>` instead of missing changes. A ring of consecutive seqs.
struct EventHistory {
    let capacity: Int
    private var lines: [[UInt8]] = []
    private var head = 0
    /// The seq of the oldest line kept (valid when not empty).
    private var firstSeq: UInt64 = 0

    init(capacity: Int = Limits.historyEvents) {
        self.capacity = capacity
    }

    mutating func append(seq: UInt64, line: [UInt8]) {
        if lines.isEmpty || firstSeq + UInt64(lines.count) != seq {
            // Empty, or a gap (a snapshot reload): the history restarts here.
            lines = [line]
            head = 0
            firstSeq = seq
        } else if lines.count < capacity {
            lines.append(line)
        } else {
            lines[head] = line
            head = (head + 1) % capacity
            firstSeq += 1
        }
    }

    /// The event lines with seq in (after, current], or nil when the history does not reach
    /// back that far (or `after` is ahead of `current`: another store).
    func lines(after: UInt64, current: UInt64) -> [[UInt8]]? {
        if after == current { return [] }
        guard after < current, !lines.isEmpty, after + 1 >= firstSeq,
              firstSeq + UInt64(lines.count) - 1 == current else { return nil }
        let skip = Int(after + 1 - firstSeq)
        return (skip..<lines.count).map { lines[(head + $0) % lines.count] }
    }
}

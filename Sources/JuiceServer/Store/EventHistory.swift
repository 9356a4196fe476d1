import JuiceCore

/// The last few thousand changes, so a display that reconnects can catch up (`SINCE <seq>`,
/// or a browser's `Last-Event-ID`) instead of missing changes. A ring of consecutive seqs.
///
/// It keeps each change as its `EVENT STOCK` line only, one buffer per change: the event-stream
/// form is read back from the line when a browser catches up. (Keeping the touched values too
/// doubled the cold buffers freed as the ring overwrites, measurably on the order path.)
struct EventHistory {
    let capacity: Int
    private var lines: [[UInt8]] = []
    private var head = 0
    /// The seq of the oldest event kept (valid when not empty).
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
            head += 1
            if head == capacity { head = 0 }
            firstSeq += 1
        }
    }

    /// Whether every event with seq in (after, current] is kept, so a catch-up can replay them
    /// one by one. False when the history does not reach back that far, or `after` is ahead
    /// of `current` (another store).
    func reaches(after: UInt64, current: UInt64) -> Bool {
        if after == current { return true }
        return after < current && !lines.isEmpty && after + 1 >= firstSeq
            && firstSeq + UInt64(lines.count) - 1 == current
    }

    /// The `EVENT STOCK` line of one seq, or nil if it is not (or no longer) kept.
    func line(seq: UInt64) -> [UInt8]? {
        guard !lines.isEmpty, seq >= firstSeq, seq - firstSeq < UInt64(lines.count) else { return nil }
        return lines[(head + Int(seq - firstSeq)) % lines.count]
    }
}

/// What one watcher saw, reduced to what the fan-out check needs.
struct WatcherTally {
    var events: Int
    var unattributedEvents: Int
    var firstSequence: UInt64?
    var lastSequence: UInt64?
    var sequenceFaults: Int
}

/// The verdict on "every watcher got every event, in order, once".
enum FanoutCheck: Equatable {
    case ok
    case failed(String)

    var word: String {
        if case .ok = self { return "ok" }
        return "failed"
    }
}

/// Pure, so it can be exercised by `juice-bench self-test`.
///
/// - expected: orders that should each have produced one event (sent and not refused).
/// - orderSequences: with sequence checking, the first/last seq in the orders' replies and
///   how many replies broke the +1 chain (another client changing stock would do that).
func checkFanout(expected: Int, watchers: [WatcherTally], checkSequence: Bool,
                 firstOrderSequence: UInt64?, lastOrderSequence: UInt64?, orderSequenceFaults: Int) -> FanoutCheck {
    var problems: [String] = []
    let short = watchers.filter { $0.events < expected }
    let extra = watchers.filter { $0.events > expected || $0.unattributedEvents > 0 }
    if !short.isEmpty {
        let fewest = short.map(\.events).min() ?? 0
        problems.append("\(short.count) of \(watchers.count) watchers missed events (fewest: \(fewest) of \(expected))")
    }
    if !extra.isEmpty {
        let most = extra.map(\.events).max() ?? 0
        problems.append("\(extra.count) watchers got more events than orders (most: \(most) for \(expected) orders)")
    }
    if checkSequence {
        if orderSequenceFaults > 0 {
            problems.append("\(orderSequenceFaults) order replies had no seq or a seq not following the previous one")
        }
        let disordered = watchers.filter { $0.sequenceFaults > 0 }
        if !disordered.isEmpty {
            problems.append("\(disordered.count) watchers saw a seq gap, duplicate or reordering")
        }
        if expected > 0 {
            let misaligned = watchers.filter {
                $0.events > 0 && ($0.firstSequence != firstOrderSequence || $0.lastSequence != lastOrderSequence)
            }
            if !misaligned.isEmpty {
                problems.append("\(misaligned.count) watchers' seq range differs from the orders' seq "
                                + "\(firstOrderSequence.map(String.init) ?? "?")...\(lastOrderSequence.map(String.init) ?? "?")")
            }
        }
    }
    return problems.isEmpty ? .ok : .failed(problems.joined(separator: "; "))
}

import JuicePlatform

/// Writes text to stderr (fd 2) unbuffered: progress and diagnostics, never results.
func writeToStandardError(_ text: String) {
    Platform.writeAll(2, text)
}

/// The progress line on stderr, refreshed about once a second: rewritten in place with \r on
/// a terminal, one line per update otherwise (logs stay readable).
final class ProgressLine {
    enum Stage {
        case starting
        case connecting(what: String, target: Int)
        case running(start: Nanos, warmupEnd: Nanos)
        case draining
        case holding(start: Nanos)
    }

    var stage = Stage.starting
    private let enabled: Bool
    private let isTerminal = isatty(2) == 1
    private var lastPrint: Nanos = 0
    private var lastReplies = 0
    private var lastEvents = 0
    private var wroteInPlace = false

    init(enabled: Bool) {
        self.enabled = enabled
        lastPrint = monotonicNow()
    }

    func tick(now: Nanos, engine: LoadEngine) {
        guard enabled, now &- lastPrint >= 1_000_000_000 else { return }
        let interval = seconds(now - lastPrint)
        lastPrint = now
        let text: String
        switch stage {
        case .starting:
            return
        case .connecting(let what, let target):
            let ready = engine.readyRequesters + engine.readyWatchers + engine.readyIdle
            text = "connecting \(what): \(ready) ready (target \(target))"
        case .running(let start, let warmupEnd):
            let replies = engine.totalReplies, events = engine.totalEvents
            let replyRate = Double(replies - lastReplies) / interval
            let eventRate = Double(events - lastEvents) / interval
            lastReplies = replies
            lastEvents = events
            var line = "\(formatFixed(seconds(now - start), 1)) s \(now < warmupEnd ? "warm-up  " : "measuring")"
                + "  replies \(replies)  \(formatFixed(replyRate, 0))/s"
            if engine.totalErrors > 0 { line += "  errors \(engine.totalErrors)" }
            if engine.recordsOrders { line += "  events \(events)  \(formatFixed(eventRate, 0))/s" }
            text = line
        case .draining:
            text = "draining: waiting for replies and events in flight"
        case .holding(let start):
            text = "holding \(engine.readyIdle + engine.readyWatchers) idle connections: \(formatFixed(seconds(now - start), 1)) s"
        }
        if isTerminal {
            writeToStandardError("\r\(text)\u{1B}[K")
            wroteInPlace = true
        } else {
            writeToStandardError(text + "\n")
        }
    }

    /// Ends an in-place line so the report starts on a fresh line.
    func finish() {
        if wroteInPlace {
            writeToStandardError("\n")
            wroteInPlace = false
        }
    }
}

/// `value` with exactly `decimals` digits after the point (no Foundation formatting needed).
func formatFixed(_ value: Double, _ decimals: Int) -> String {
    guard value.isFinite else { return "0" }
    var scale = 1.0
    for _ in 0..<decimals { scale *= 10 }
    let scaled = (abs(value) * scale).rounded()
    let whole = Int(scaled / scale)
    let sign = value < 0 && scaled != 0 ? "-" : ""
    if decimals == 0 { return sign + String(whole) }
    let fraction = Int(scaled - Double(whole) * scale)
    let fractionText = String(fraction)
    return sign + String(whole) + "." + String(repeating: "0", count: decimals - fractionText.count) + fractionText
}

import JuicePlatform
/// How many log lines of one kind (connects, refusals, ...) are written: at most `perWindow`
/// in each window of `windowNanoseconds`; the rest are only counted, and the count is handed
/// out once that window is over, for one "N similar lines suppressed" line. Clients choose how
/// often they connect or fail; the log's size must not be theirs to choose.
///
/// Pure: the caller passes the time (monotonic nanoseconds). Not thread-safe: `Log` guards it.
package struct LogThrottle {
    package static let perWindow = 20
    package static let windowNanoseconds: UInt64 = 1_000_000_000

    private var windowStart: UInt64?
    private var written = 0
    /// Lines counted but not written in the current (or last) window, not yet reported.
    package private(set) var suppressed = 0

    package init() {}

    /// Whether a line arriving at `now` is written. `report` is the number of lines an earlier,
    /// finished window suppressed: log it before this line.
    package mutating func admit(now: UInt64) -> (write: Bool, report: Int?) {
        let report = takeReport(now: now)
        if windowStart == nil {
            windowStart = now
            written = 0
        }
        if written < LogThrottle.perWindow {
            written += 1
            return (true, report)
        }
        suppressed += 1
        return (false, report)
    }

    /// If the window is over: the lines it suppressed (nil if none), and a new window starts
    /// with the next line. Called on every log line of any kind, so a summary never waits for
    /// its own kind to come back.
    package mutating func takeReport(now: UInt64) -> Int? {
        guard let start = windowStart, now &- start >= LogThrottle.windowNanoseconds else { return nil }
        windowStart = nil
        defer { suppressed = 0 }
        return suppressed > 0 ? suppressed : nil
    }

    /// The lines suppressed so far, even mid-window (before a stop line: the log's last word
    /// must not leave a count untold). The window goes on: its limit still holds.
    package mutating func takeReportNow() -> Int? {
        defer { suppressed = 0 }
        return suppressed > 0 ? suppressed : nil
    }
}

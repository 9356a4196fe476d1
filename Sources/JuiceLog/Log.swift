import JuicePlatform
import Synchronization

/// How much the server logs (`--log-level`). Start and stop lines and errors are always written.
public enum LogLevel: Int, Sendable, Comparable, CaseIterable {
    /// Errors (and start/stop lines) only.
    case error
    /// Also warnings: refusals, dropped clients, torn journal records.
    case warn
    /// Also connects, disconnects and compactions (the default).
    case info
    /// Everything, with no rate limit on the lines clients can cause (for a test bench).
    case debug

    public init?(name: String) {
        guard let level = LogLevel.allCases.first(where: { $0.name == name }) else { return nil }
        self = level
    }

    public var name: String {
        switch self {
        case .error: "error"
        case .warn: "warn"
        case .info: "info"
        case .debug: "debug"
        }
    }

    public static func < (a: LogLevel, b: LogLevel) -> Bool { a.rawValue < b.rawValue }
}

/// Timestamped lines on stderr: connects, disconnects, refusals and errors. They are written by
/// `LogWriter`'s own thread from a bounded buffer, so a stderr that does not keep up costs
/// dropped lines (counted, and reported once it drains), never a stalled loop. One `write` per
/// line, so lines never interleave mid-line.
///
/// Lines a client can cause at will (a `Category`) are rate-limited, each kind on its own
/// (`LogThrottle`): a flood of connects or refusals writes a few lines a second and then one
/// "N similar lines suppressed" line. Errors and start/stop lines are never limited. Every message
/// is escaped (`LogText`): client text in it cannot forge lines or steer a terminal.
public enum Log {
    /// The kinds of line a client can repeat as often as it likes.
    public enum Category: Int, CaseIterable, Sendable {
        case connections, refusals, busy

        package var name: String {
            switch self {
            case .connections: "connect/disconnect"
            case .refusals: "refusal"
            case .busy: "max clients"
            }
        }
    }

    private struct State {
        package var level = LogLevel.info
        package var throttles = Array(repeating: LogThrottle(), count: Category.allCases.count)
    }

    // Called from the loop and from the journal's threads.
    private static let state = Mutex(State())

    public static var level: LogLevel {
        get { state.withLock { $0.level } }
        set { state.withLock { $0.level = newValue } }
    }

    // Messages are built only if they are written: a connect flood at --log-level warn, or
    // past the limit of its kind, costs no string per connection.
    public static func info(_ message: @autoclosure () -> String, category: Category? = nil) {
        log(.info, "", message, category)
    }

    public static func warning(_ message: @autoclosure () -> String, category: Category? = nil) {
        log(.warn, "warning: ", message, category)
    }

    /// Errors: written at every level, never limited, after any count of suppressed lines.
    public static func error(_ message: String) {
        log(.error, "error: ", { message }, nil, reportAll: true)
    }

    /// Start and stop lines: the same.
    public static func lifecycle(_ message: String) {
        log(.error, "", { message }, nil, reportAll: true)
    }

    private static func log(_ level: LogLevel, _ prefix: String, _ message: () -> String, _ category: Category?,
                            reportAll: Bool = false) {
        let now = Platform.monotonicNanoseconds()
        // Decide under the lock, write outside it: a slow stderr must not hold up the other thread.
        let (write, reports) = state.withLock { s -> (Bool, [(Category, Int)]) in
            var reports: [(Category, Int)] = []
            for kind in Category.allCases {
                let report = reportAll ? s.throttles[kind.rawValue].takeReportNow() : s.throttles[kind.rawValue].takeReport(now: now)
                if let n = report { reports.append((kind, n)) }
            }
            guard level <= s.level else { return (false, reports) }
            guard let category, s.level < .debug else { return (true, reports) }
            let (admitted, report) = s.throttles[category.rawValue].admit(now: now)
            if let report { reports.append((category, report)) }
            return (admitted, reports)
        }
        for (kind, n) in reports {
            writer.enqueue(line("warning: ", "\(n) similar lines suppressed (\(kind.name) lines: at most \(LogThrottle.perWindow) a second are logged)"),
                           urgent: false)
        }
        if write { writer.enqueue(line(prefix, LogText.escaped(message())), urgent: reportAll) }
    }

    private static let writer = LogWriter(fd: 2) { dropped in
        line("warning: ", "\(dropped) log lines dropped (stderr not keeping up)")
    }

    /// Waits (at most `seconds`: stderr may be stuck for good) until every line logged so far is
    /// written. Call it before the process exits.
    public static func flush(seconds: Double = 2) {
        writer.flush(seconds: seconds)
    }

    /// A whole line: timestamp, program, level, message.
    private static func line(_ level: String, _ message: String) -> String {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        var seconds = now.tv_sec
        var parts = tm()
        gmtime_r(&seconds, &parts)
        let stamp = String(Int(parts.tm_year) + 1900) + "-" + two(parts.tm_mon + 1) + "-" + two(parts.tm_mday)
            + "T" + two(parts.tm_hour) + ":" + two(parts.tm_min) + ":" + two(parts.tm_sec)
            + "." + three(Int(now.tv_nsec / 1_000_000)) + "Z"
        return stamp + " juice-server: " + level + message + "\n"
    }

    private static func two(_ v: Int32) -> String { v < 10 ? "0\(v)" : "\(v)" }
    private static func three(_ v: Int) -> String { v < 10 ? "00\(v)" : v < 100 ? "0\(v)" : "\(v)" }
}

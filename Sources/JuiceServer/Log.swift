import JuicePlatform

/// Timestamped lines on stderr: connects, disconnects, refusals and errors. One `write` per
/// line, so lines from the loop and the journal thread never interleave mid-line.
public enum Log {
    public static func info(_ message: String) {
        emit("", message)
    }

    public static func warning(_ message: String) {
        emit("warning: ", message)
    }

    public static func error(_ message: String) {
        emit("error: ", message)
    }

    private static func emit(_ level: String, _ message: String) {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        var seconds = now.tv_sec
        var parts = tm()
        gmtime_r(&seconds, &parts)
        let stamp = String(Int(parts.tm_year) + 1900) + "-" + two(parts.tm_mon + 1) + "-" + two(parts.tm_mday)
            + "T" + two(parts.tm_hour) + ":" + two(parts.tm_min) + ":" + two(parts.tm_sec)
            + "." + three(Int(now.tv_nsec / 1_000_000)) + "Z"
        let line = stamp + " juice-server: " + level + message + "\n"
        Platform.writeAll(2, line)
    }

    private static func two(_ v: Int32) -> String { v < 10 ? "0\(v)" : "\(v)" }
    private static func three(_ v: Int) -> String { v < 10 ? "00\(v)" : v < 100 ? "0\(v)" : "\(v)" }
}

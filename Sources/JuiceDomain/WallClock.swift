import JuiceCore
import JuicePlatform
import JuiceLog

/// The wall clock, in whole unix seconds: the one seam through which the server reads "now" for
/// everything that is dated (the journal's times, the key memory's ages, the shop's days and
/// hours, the per-minute counts). `time()` is read without a system call on Linux (vDSO).
///
/// Debug builds let a test move it: with `JUICE_TEST_CLOCK=PATH`, "now" is the number in that
/// file (unix seconds) whenever the file exists, so a test can cross a midnight, a day start or
/// a daylight-saving change, and restart across them, without waiting. A release build reads
/// the real clock only.
package enum WallClock {
    @Sendable package static func unixSeconds() -> Int64 {
        #if DEBUG
        if let path = testClockPath, let now = readTestClock(path) { return now }
        #endif
        return Int64(time(nil))
    }

    #if DEBUG
    private static let testClockPath: String? = getenv("JUICE_TEST_CLOCK").map { String(cString: $0) }

    private static func readTestClock(_ path: String) -> Int64? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: 32)
        let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, 32) }
        guard n > 0 else { return nil }
        let text = String(decoding: buffer[0..<n], as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        // Held to the times a record carries, as the real clock is: a test clock at 10^15 used
        // to trap the server (a business day past Int32).
        return Int64(text).map { min(max($0, JournalRecord.times.lowerBound), JournalRecord.times.upperBound) }
    }
    #endif
}

import JuicePlatform

/// Why juice-bench stops early. `usage` errors exit with status 2 (and print the usage),
/// everything else with status 1.
enum BenchError: Error {
    /// A bad command line: the message, and which subcommand's usage to show (nil: general).
    case usage(String, subcommand: String?)
    /// Cannot run or cannot trust the result (cannot connect, server closed on us, ...).
    case fatal(String)
}

/// strerror as a Swift string, for messages.
func errnoDescription(_ code: Int32 = errno) -> String {
    Platform.describe(code)
}

extension BenchError {
    var message: String {
        switch self {
        case .usage(let message, _), .fatal(let message): return message
        }
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A failed system call: which operation, and the `errno` it left. The one error type for socket,
/// poller and process calls (storage has its own, `StorageError`, which speaks of files).
public struct SystemError: Error, Equatable, CustomStringConvertible, Sendable {
    public let operation: String
    public let code: Int32

    /// `code` defaults to the current `errno`: build the error right after the call that failed.
    public init(_ operation: String, _ code: Int32 = errno) {
        self.operation = operation
        self.code = code
    }

    public var description: String { "\(operation) failed: \(Platform.describe(code))" }
}

extension Platform {
    /// "Connection reset by peer" for ECONNRESET: strerror, as a Swift string.
    public static func describe(_ code: Int32) -> String {
        String(cString: strerror(code))
    }
}

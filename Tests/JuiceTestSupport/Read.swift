import Foundation

/// What a non-throwing read found, for every client in the toolkit: a value (a line, an
/// event-stream message), the end of the connection, or nothing before the deadline.
public enum Read<Value: Equatable & Sendable>: Equatable, Sendable {
    case got(Value)
    case closed
    case timeout

    /// Reads with `next` until a value passes `keep` (a closed connection or the deadline ends
    /// it too); `timeout` bounds the whole wait, not each read.
    public static func first(within timeout: Double, _ next: (Double) -> Read,
                             where keep: (Value) -> Bool) -> Read {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            let read = next(max(0, deadline.timeIntervalSinceNow))
            if case .got(let value) = read, !keep(value) { continue }
            return read
        }
    }

    /// The value, or an error saying what came instead of it (`what`: "line", "event");
    /// `holding` describes what the client had buffered, for the failure message.
    public func value(_ what: String, timeout: Double, holding: @autoclosure () -> String = "") throws -> Value {
        switch self {
        case .got(let value): return value
        case .closed: throw TestError("the connection closed before the next \(what)\(holding())")
        case .timeout: throw TestError("no \(what) within \(timeout) s\(holding())")
        }
    }
}

/// A line client's read.
public typealias LineRead = Read<String>

import JuicePlatform
import Synchronization

/// Hands values from async tasks (a JuiceClient stream, an order that finished) to a poll loop
/// on a plain thread: the values wait in a locked list, and one byte on a pipe wakes the loop.
/// The pipe is non-blocking at both ends, so a task never blocks on it: when it is full, the
/// loop is already due to wake and will take every value waiting.
public final class Mailbox<Value: Sendable>: Sendable {
    /// The end the loop polls for POLLIN.
    public let readFD: Int32
    private let writeFD: Int32
    private let items = Mutex<[Value]>([])

    public init() throws {
        (readFD, writeFD) = try SignalPipe.wakePipe()
    }

    deinit {
        Platform.close(readFD)
        Platform.close(writeFD)
    }

    /// From any thread or task.
    public func post(_ value: Value) {
        items.withLock { $0.append(value) }
        var byte: UInt8 = 1
        _ = write(writeFD, &byte, 1) // EAGAIN: a wake-up is already pending
    }

    /// On the loop, after poll said `readFD` is readable (or whenever): every value so far.
    public func take() -> [Value] {
        var buffer = [UInt8](repeating: 0, count: 256)
        while read(readFD, &buffer, buffer.count) > 0 {}
        return items.withLock { values in
            defer { values = [] }
            return values
        }
    }
}

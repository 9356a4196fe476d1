import Dispatch

/// A value that belongs to one serial queue (the loop's), carried through a `@Sendable` closure
/// that brings it back there: a job handed to another thread that reports on the loop, or a
/// job queued for later on the loop itself. Its type need not be Sendable, and is not made so
/// for the sake of one hop: the value is made on the queue and read only there, both checked.
public struct LoopBound<Value>: @unchecked Sendable {
    // @unchecked: `held` is made and read only on `queue` (checked on both), so no two threads
    // ever touch it; anywhere else the struct only carries it.
    private let held: Value
    private let queue: DispatchQueue

    public init(_ value: Value, on queue: DispatchQueue) {
        dispatchPrecondition(condition: .onQueue(queue))
        held = value
        self.queue = queue
    }

    /// The value; only on its queue.
    public var value: Value {
        dispatchPrecondition(condition: .onQueue(queue))
        return held
    }

    /// Runs `body` with the value on its queue, after what is queued there (from any thread).
    public func async(_ body: @escaping @Sendable (Value) -> Void) {
        // `held`, not `value`: this runs on `queue` by construction, so its check is implied,
        // and the job reaches `body` in one call.
        queue.async { body(held) }
    }
}

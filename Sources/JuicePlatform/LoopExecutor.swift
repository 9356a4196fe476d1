import Dispatch

/// The server's one serial event loop, as a Swift executor. Socket handlers run on `queue`, and
/// the `FruitStore` and `Server` actors run on it too, so a read handler reaches the store
/// with `assumeIsolated` — no thread hop, no Task per line, replies in request order — while
/// the compiler still checks that nothing else touches actor state.
public final class LoopExecutor: SerialExecutor, Sendable {
    public let queue: DispatchQueue

    public init(label: String = "juice-server.loop") {
        queue = DispatchQueue(label: label)
    }

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        queue.async {
            job.runSynchronously(on: self.asUnownedSerialExecutor())
        }
    }

    public func asUnownedSerialExecutor() -> UnownedSerialExecutor {
        UnownedSerialExecutor(ordinary: self)
    }

    /// Lets `assumeIsolated` succeed from a plain Dispatch block running on `queue`.
    public func checkIsolated() {
        dispatchPrecondition(condition: .onQueue(queue))
    }
}

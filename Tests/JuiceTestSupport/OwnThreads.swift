import Foundation
import Glibc
import Testing

/// Runs each test on threads of the test toolkit's own instead of Swift's cooperative pool.
///
/// Why: Swift Testing runs every test, a synchronous one too, as a task on the cooperative pool,
/// which has one thread per core: two on a 2-core CI machine. Our tests block on purpose (a
/// socket read with a timeout, `eventually`, a wait for a server process to exit), so two of
/// them running side by side took the whole pool, and anything in the process that needed it
/// waited: a JuiceClient call's task, an `await` in a third test resuming. A test blocked on a
/// server that waited for such a task then stalled until its deadline (seen on CI: a client's
/// order never sent while its test waited 60 s for the server to die of it).
///
/// Every suite carries `.onOwnThreads` (a toolkit test checks the sources); it sets this
/// executor as the test's task executor preference, so the test body, its `await`
/// resumptions and its child tasks run here, where a thread that blocks never holds up another.
public struct OnOwnThreads: SuiteTrait, TestTrait, TestScoping {
    public var isRecursive: Bool { true }

    public func provideScope(for test: Test, testCase: Test.Case?,
                             performing function: @Sendable () async throws -> Void) async throws {
        // A suite's own scope passes through: each test case sets the preference itself.
        guard testCase != nil else { return try await function() }
        await TestSlots.shared.acquire()
        do {
            try await withTaskExecutorPreference(GrowingThreadPool.tests) { try await function() }
        } catch {
            await TestSlots.shared.release()
            throw error
        }
        await TestSlots.shared.release()
    }
}

/// How many tests run at once. The cooperative pool used to bound it (badly: by blocking); off
/// the pool nothing would, and hundreds of tests with their servers, sockets and deadlines at
/// once would make a 2-core machine a test of its own. Waiting for a slot suspends; it holds no
/// thread.
actor TestSlots {
    static let shared = TestSlots(count: 4 * max(1, ProcessInfo.processInfo.activeProcessorCount))

    private var free: Int
    private var waiting: [CheckedContinuation<Void, Never>] = []

    init(count: Int) { free = count }

    func acquire() async {
        if free > 0 {
            free -= 1
            return
        }
        await withCheckedContinuation { waiting.append($0) }
    }

    func release() {
        if waiting.isEmpty { free += 1 } else { waiting.removeFirst().resume() }
    }
}

extension Trait where Self == OnOwnThreads {
    /// Run on the toolkit's growing thread pool, where blocking is harmless (see `OnOwnThreads`).
    public static var onOwnThreads: Self { Self() }
}

/// A task executor that runs each job at once: on an idle thread of its own if one waits, else
/// on a new thread. It never queues a job behind a blocked one, which is the point. (A Dispatch
/// concurrent queue does not do this: on Linux it stops adding threads at a small multiple of
/// the core count.) Threads idle for 10 s end.
public final class GrowingThreadPool: TaskExecutor, @unchecked Sendable {
    // @unchecked: `jobs` and `idle` are touched only with `condition` locked.
    public static let tests = GrowingThreadPool()

    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []
    /// Threads waiting for a job.
    private var idle = 0

    public init() {}

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.lock()
        jobs.append(job)
        // Every queued job needs a waiting thread of its own; a new one if there are not enough.
        let spawn = jobs.count > idle
        if !spawn { condition.signal() }
        condition.unlock()
        if spawn { Thread.detachNewThread { [self] in work() } }
    }

    /// Whether the calling thread is one of this pool's.
    public var ownsCurrentThread: Bool {
        let owner: UnsafeMutableRawPointer? = pthread_getspecific(Self.owner)  // nil off the pool
        return owner == Unmanaged.passUnretained(self).toOpaque()
    }

    /// Each pool thread's owner, as a thread-specific value (Foundation's `Thread.name` is not
    /// reliable for this on Linux).
    private static let owner: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key, nil)
        return key
    }()

    private func work() {
        pthread_setspecific(Self.owner, Unmanaged.passUnretained(self).toOpaque())
        condition.lock()
        while true {
            while jobs.isEmpty {
                idle += 1
                let signalled = condition.wait(until: Date().addingTimeInterval(10))
                idle -= 1
                if !signalled && jobs.isEmpty {
                    condition.unlock()
                    return
                }
            }
            let job = jobs.removeFirst()
            condition.unlock()
            job.runSynchronously(on: asUnownedTaskExecutor())
            condition.lock()
        }
    }
}

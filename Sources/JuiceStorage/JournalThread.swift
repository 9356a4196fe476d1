import Dispatch
import Foundation
import Synchronization
import JuiceCore
import JuiceDomain
import JuicePlatform
import JuiceLog

/// The journal's own thread: runs the jobs handed to it one at a time, in the order given
/// (records land in order; a growth or a compaction runs behind the writes handed over before it).
///
/// Why a thread of its own rather than Dispatch queues: each `queue.async` onto an idle queue
/// wakes a Dispatch worker (a futex wake that often preempts the caller), and the worker parks
/// again when the queue drains: two or three context switches per hop. A group's write and its
/// fdatasync used to be two hops (a write queue, then a sync queue) and two reports back to the
/// loop; here they are one job, and the only hop back is the report that the group is durable.
/// A thread that blocks in fdatasync for as long as the disk takes also takes no worker from the
/// loop's pool (like `LogWriter`'s).
package final class JournalThread: Sendable {
    private let shared = Shared()

    package init(name: String) {
        // The thread holds only `shared`: when the journal is let go (a test's), `deinit` tells
        // it to end once its queued jobs are done.
        let thread = Thread { [shared] in
            // Named from inside, before its first job, by the platform layer: Foundation's
            // `Thread.name` is lost when this thread runs before `start()` returns. The name is
            // what /proc, perf and juice-bench show.
            Platform.nameCurrentThread(name)
            shared.run()
        }
        thread.stackSize = 512 << 10
        thread.start()
    }

    deinit {
        // The end: the thread stops once the jobs queued before it are done.
        shared.add(nil)
    }

    /// Queues `job` behind every job queued before it. Wakes the thread only if it is idle.
    package func async(_ job: @escaping @Sendable () -> Void) {
        shared.add(job)
    }

    /// Queues `job` after `seconds` (a retry on a full disk: rare, so a Dispatch timer does).
    package func async(after seconds: Int, _ job: @escaping @Sendable () -> Void) {
        DispatchQueue.global().asyncAfter(deadline: .now() + .seconds(seconds)) { [shared] in shared.add(job) }
    }

    /// The jobs, shared by the thread and whoever queues them.
    private final class Shared: Sendable {
        struct Jobs {
            /// nil: the end (the journal was let go).
            var queued: [(@Sendable () -> Void)?] = []
            /// The thread found nothing to do and waits for `wake`.
            var idle = false
        }

        private let jobs = Mutex(Jobs())
        private let wake = DispatchSemaphore(value: 0)

        func add(_ job: (@Sendable () -> Void)?) {
            let wakeThread = jobs.withLock { jobs -> Bool in
                jobs.queued.append(job)
                guard jobs.idle else { return false }
                jobs.idle = false
                return true
            }
            if wakeThread { wake.signal() }
        }

        func run() {
            while true {
                let batch = jobs.withLock { jobs -> [(@Sendable () -> Void)?]? in
                    guard !jobs.queued.isEmpty else {
                        jobs.idle = true
                        return nil
                    }
                    defer { jobs.queued = [] }
                    return jobs.queued
                }
                guard let batch else {
                    wake.wait()
                    continue
                }
                for job in batch {
                    guard let job else { return }
                    job()
                }
            }
        }
    }
}

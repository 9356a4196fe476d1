import Foundation
import Glibc
import JuiceCore
import JuiceDomain
import JuiceStorage
import JuicePlatform
import JuiceLog
import JuiceLoop
import JuiceServices
import JuiceLine
import JuiceHTTP
@testable import JuiceServer
import JuiceTestSupport
import Synchronization
import Testing

/// The journal's own thread: jobs in order, one at a time, on a thread that carries its name (so
/// `juice-bench` can show what the journal costs apart from the loop), and that ends when the
/// journal is let go.
@Suite(.onOwnThreads) struct JournalThreadTests {
    /// Threads of this process with `name` (/proc/self/task/*/comm).
    static func threads(named name: String) -> Int {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
        return tasks.filter { ProcStat.read("/proc/self/task/\($0)/comm") == name + "\n" }.count
    }

    /// The calling thread's id.
    static func currentThread() -> pthread_t { pthread_self() }

    @Test func jobsRunInOrderOneAtATimeOnTheNamedThread() {
        let thread = JournalThread(name: "jt-order")
        let seen = Mutex<[(Int, pthread_t)]>([])
        let running = Atomic<Int>(0)
        let overlapped = Atomic<Bool>(false)
        for i in 0..<200 {
            thread.async {
                if running.add(1, ordering: .sequentiallyConsistent).newValue > 1 { overlapped.store(true, ordering: .sequentiallyConsistent) }
                seen.withLock { $0.append((i, Self.currentThread())) }
                running.subtract(1, ordering: .sequentiallyConsistent)
            }
        }
        #expect(eventually { seen.withLock { $0.count } == 200 })
        let (order, threads) = seen.withLock { ($0.map(\.0), Set($0.map(\.1))) }
        #expect(order == Array(0..<200))
        #expect(threads.count == 1, "one thread ran them all: \(threads)")
        // Its name, read from /proc after the jobs (a read inside a job could fail for reasons
        // of its own, e.g. a suite beside it short of descriptors): retried until the deadline.
        #expect(eventually { Self.threads(named: "jt-order") == 1 })
        let didOverlap = overlapped.load(ordering: .sequentiallyConsistent)
        #expect(!didOverlap)
    }

    /// Its jobs queued before the journal is let go still run; then the thread ends.
    @Test func aJournalThreadLetGoEndsAfterItsQueuedJobs() {
        let ran = Atomic<Int>(0)
        do {
            let thread = JournalThread(name: "jt-release")
            #expect(eventually { Self.threads(named: "jt-release") == 1 })
            for _ in 0..<10 { thread.async { ran.add(1, ordering: .sequentiallyConsistent) } }
        }
        #expect(eventually { Self.threads(named: "jt-release") == 0 })
        let jobsRun = ran.load(ordering: .sequentiallyConsistent)
        #expect(jobsRun == 10)
    }

    /// The real server: the journal's writes and syncs run on the thread named juice-journal
    /// (it ran while orders were made durable), not on Dispatch's shared workers.
    @Test func aDurableServersJournalRunsOnItsOwnThread() throws {
        let directory = TemporaryDirectory()
        let server = try ExecutableServer(["--data", directory.path])
        func journalRunNanos() -> UInt64? {
            let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(server.pid)/task")) ?? []
            let journal = tasks.first { ProcStat.read("/proc/\(server.pid)/task/\($0)/comm") == "juice-journal\n" }
            return journal.flatMap { ProcStat.read("/proc/\(server.pid)/task/\($0)/schedstat") }
                .flatMap { $0.split(separator: " ").first.flatMap { UInt64($0) } }
        }
        let before = try #require(journalRunNanos(), "no thread named juice-journal in the server")
        let client = try server.client()
        #expect(try client.command("EVENTS OFF") == "OK EVENTS off")
        for _ in 0..<20 { #expect(try client.command("RESTOCK banana 5").hasPrefix("OK RESTOCK")) }
        #expect((journalRunNanos() ?? 0) > before)
    }
}

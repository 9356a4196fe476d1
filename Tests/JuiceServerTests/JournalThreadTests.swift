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
    /// Threads of this process with `name` (/proc/self/task/*/comm), or nil while /proc cannot
    /// be read (a suite beside this one short of descriptors): nil is never "none". That holds
    /// for each thread's name too: one whose comm cannot be read may be the one named `name`,
    /// and counted as another it made `== 0` true while the thread still ran. A thread that
    /// ended between the listing and the read is no thread of the count.
    static func threads(named name: String) -> Int? {
        guard let tasks = try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task") else { return nil }
        var count = 0
        for task in tasks {
            guard let comm = ProcStat.read("/proc/self/task/\(task)/comm") else {
                if access("/proc/self/task/\(task)", F_OK) != 0 && errno == ENOENT { continue }  // ended
                return nil
            }
            if comm == name + "\n" { count += 1 }
        }
        return count
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
        // Waited for, not read at once: the thread runs them when it gets a core.
        #expect(eventually { ran.load(ordering: .sequentiallyConsistent) == 10 })
        #expect(eventually { Self.threads(named: "jt-release") == 0 })
    }

    /// Every journal thread carries its name from its first job, however the starter and the
    /// new thread are scheduled. (Foundation's `Thread.name`, set from inside, was lost whenever
    /// the new thread ran before `start()` returned: CI's busy machine once left "jt-release"
    /// unnamed for a whole minute.) Read with pthread_getname_np inside the job: no /proc.
    @Test func everyJournalThreadIsNamedFromItsFirstJob() {
        let names = Mutex<[Int: String]>([:])
        let threads = (0..<200).map { i in
            let thread = JournalThread(name: "jt-name-\(i)")
            thread.async { names.withLock { $0[i] = Platform.currentThreadName() } }
            return thread
        }
        #expect(eventually { names.withLock { $0.count } == threads.count })
        let wrong = names.withLock { $0.filter { $0.value != "jt-name-\($0.key)" } }
        #expect(wrong.isEmpty, "threads without their name: \(wrong.sorted { $0.key < $1.key }.prefix(5))")
    }

    /// A name longer than the kernel keeps (15 bytes) is cut, not dropped.
    @Test func aLongThreadNameIsCutToFifteenBytes() {
        let name = Mutex<String?>(nil)
        let thread = JournalThread(name: "jt-a-name-longer-than-fifteen")
        thread.async { name.withLock { $0 = Platform.currentThreadName() } }
        #expect(eventually { name.withLock { $0 } != nil })
        #expect(name.withLock { $0 } == "jt-a-name-longe")
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
        // Waited for, not read once: the journal thread names itself when it first runs, which
        // on a busy machine can come after the server printed its listening line (and a /proc
        // read can fail for a moment). The thread named later is the same thread.
        var started: UInt64? = nil
        _ = eventually { started = journalRunNanos(); return started != nil }  // giving up fails the #require
        let before = try #require(started, "no thread named juice-journal in the server")
        let client = try server.client()
        #expect(try client.command("EVENTS OFF") == "OK EVENTS off")
        for _ in 0..<20 { #expect(try client.command("RESTOCK banana 5").hasPrefix("OK RESTOCK")) }
        #expect(eventually { (journalRunNanos() ?? 0) > before }, "the journal thread did not run for 20 durable changes")
    }

    /// The server's own threads carry their names, as `top -H`, perf and juice-bench show them:
    /// the journal's and the log writer's (whose name was once set before `start()`, where
    /// Foundation drops it).
    @Test func theServersOwnThreadsCarryTheirNames() throws {
        let directory = TemporaryDirectory()
        let server = try ExecutableServer(["--data", directory.path])
        func names() -> [String] {
            let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(server.pid)/task")) ?? []
            return tasks.compactMap { ProcStat.read("/proc/\(server.pid)/task/\($0)/comm") }
        }
        #expect(eventually { names().contains("juice-journal\n") && names().contains("juice-log\n") },
                "threads: \(names().sorted())")
    }
}

import Foundation
import Testing

/// The toolkit's `.onOwnThreads`: tests block on purpose, so none may run on (and hold) a thread
/// of Swift's cooperative pool, and the pool they run on must never queue work behind a blocked
/// thread.
@Suite(.onOwnThreads) struct OwnThreadsTests {
    /// A synchronous test body runs on the toolkit's pool, not the cooperative one.
    @Test func aTestBodyRunsOnTheToolkitsThreads() async {
        #expect(onPoolThread())
        await Task.yield()
        #expect(onPoolThread(), "an await resumed elsewhere")
    }

    /// Eight jobs that each block until all eight run at once: a pool that queued a job behind a
    /// blocked one (the cooperative pool's two threads, a Dispatch concurrent queue's few) would
    /// never see all eight, and the bounded wait would give up.
    @Test func blockedJobsNeverHoldUpAnotherOne() async {
        let arrived = Locked(0)
        let results = await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<8 {
                group.addTask(executorPreference: GrowingThreadPool.tests) {
                    arrived.update { $0 += 1 }
                    return eventually { arrived.get == 8 }
                }
            }
            return await group.reduce(into: [Bool]()) { $0.append($1) }
        }
        #expect(results == Array(repeating: true, count: 8), "only \(arrived.get) of 8 ran at once")
    }

    /// Every suite in every test target carries the trait: the sources are read, since a suite
    /// without it would still pass alone and only starve others on a busy machine.
    @Test func everySuiteCarriesTheTrait() throws {
        let tests = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        let files = FileManager.default.enumerator(atPath: tests.path)?.compactMap { $0 as? String }
            .filter { $0.hasSuffix(".swift") } ?? []
        #expect(files.count > 20, "the test sources were not found at \(tests.path)")
        var suites = 0, missing: [String] = []
        for file in files {
            let text = try String(contentsOfFile: tests.path + "/" + file, encoding: .utf8)
            for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                if line.hasPrefix("@Suite") {
                    suites += 1
                    if !line.contains(".onOwnThreads") { missing.append("\(file):\(number + 1)") }
                }
                // A test outside any suite would escape the trait.
                if line.hasPrefix("@Test") { missing.append("\(file):\(number + 1) (a test outside a suite)") }
            }
        }
        #expect(suites > 50)
        #expect(missing.isEmpty, "without .onOwnThreads: \(missing)")
    }

    private func onPoolThread() -> Bool { GrowingThreadPool.tests.ownsCurrentThread }
}

import Dispatch
import JuiceClient
import JuicePlatform
import JuiceTill
import Synchronization

/// Not a terminal: one order a line on stdin (`mango-kiwi 2`), one result a line on stdout, in
/// the same order. Each order is answered before the next is read, so a script can tell which
/// result is whose; a dropped connection or a server restart only makes the answer wait.
/// Exit status 1 if any line was an error, so a script that checks `$?` sees it.
struct PipedTill {
    let sales: Sales

    func run() -> Int32 {
        var failed = false
        while let line = readLine(strippingNewline: true) {
            if line.allSatisfy({ $0 == " " || $0 == "\t" || $0 == "\r" }) { continue }
            let reply: String
            if let (juice, count) = TillLines.order(line) {
                switch wait({ try await sales.order(juice, count: count) }) {
                case .success(let result): reply = TillLines.result(result, juice: juice, count: count)
                case .failure(let error): reply = "error \(error)"
                }
            } else {
                reply = "error not an order: expected <juice> [count]"
            }
            if reply.hasPrefix("error ") { failed = true }
            guard Platform.writeAll(STDOUT_FILENO, reply + "\n") else { return 1 }
        }
        return failed ? 1 : 0
    }

    /// Runs `body` in a task and waits on this thread (the main thread, not one of the
    /// concurrency pool's).
    private func wait(_ body: @escaping @Sendable () async throws -> OrderResult) -> Result<OrderResult, any Error> {
        let done = DispatchSemaphore(value: 0)
        let outcome = Mutex<Result<OrderResult, any Error>?>(nil)
        Task.detached {
            let result: Result<OrderResult, any Error>
            do { result = .success(try await body()) } catch { result = .failure(error) }
            outcome.withLock { $0 = result }
            done.signal()
        }
        done.wait()
        return outcome.withLock { $0 }!
    }
}

import Foundation

/// How long any test waits for something before giving up: a server to start or exit, a reply,
/// a condition to settle. Generous, because CI is a busy 2-core machine: it only bounds a wait
/// (a healthy run never gets near it) and is never a speed requirement.
public let testDeadline: Double = 60

/// Polls `condition` until it holds or `timeout` passes: for conditions that settle eventually.
/// True if it held. The result must be used: a wait that gives up is a failure
/// (`#expect(eventually {…})`, `try #require(eventually {…})`), or, where giving up is
/// genuinely fine, an explicit `_ =` with a comment saying why. (A condition that waits for
/// nothing, only for time to pass, is a bug: pass something that can become true.)
public func eventually(timeout: Double = testDeadline, _ condition: () throws -> Bool) rethrows -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
    while deadline.timeIntervalSinceNow > 0 {
        if try condition() { return true }
        usleep(20_000)
    }
    return try condition()
}

/// The same from async code, sleeping without holding a thread of the cooperative pool.
public func eventually(timeout: Double = testDeadline, _ condition: () async throws -> Bool) async rethrows -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
    while deadline.timeIntervalSinceNow > 0 {
        if try await condition() { return true }
        try? await Task.sleep(nanoseconds: 20_000_000)
    }
    return try await condition()
}

/// `eventually` for a plain (non-async) condition from async code. `await eventually { sync }`
/// picks the blocking overload, which sleeps on a thread of the cooperative pool (two threads on
/// a 2-core CI machine: a few such waits starve every async test); this one suspends instead.
@discardableResult
public func settles(timeout: Double = testDeadline, _ condition: () -> Bool) async -> Bool {
    await eventually(timeout: timeout) { () async -> Bool in condition() }
}

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

/// Opens something guarded by a lock (flock) that this process has just let go of, again while
/// `isHeld` says the error means "still held". A child process another test spawns at that
/// moment holds a copy of every descriptor, close-on-exec ones too, from its fork until its
/// exec, and the lock belongs to every copy. A lock never let go still fails: the last "held"
/// error is thrown at the deadline; any other error at once.
public func retryingWhileLockHeld<T>(_ open: () throws -> T, isHeld: (any Error) -> Bool) throws -> T {
    var opened: T? = nil
    var held: (any Error)? = nil
    _ = try eventually {  // giving up throws `held` below
        do {
            opened = try open()
            return true
        } catch where isHeld(error) {
            held = error
            return false
        }
    }
    if let opened { return opened }
    throw held ?? TestError("the lock was never taken")
}

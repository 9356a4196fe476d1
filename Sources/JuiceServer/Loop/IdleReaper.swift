import Dispatch

/// Closes connections that sent nothing for `--idle-timeout` seconds, checking a quarter as
/// often as the timeout (at least once a second).
final class IdleReaper: @unchecked Sendable {
    // @unchecked: loop-confined; the timer fires on the loop queue.
    private let timer: DispatchSourceTimer
    private let limit: UInt64
    let seconds: Int
    /// Told of the moment to compare against: close whoever's `lastInput` is older than it.
    var reap: (_ olderThan: UInt64, _ seconds: Int) -> Void = { _, _ in }

    init(seconds: Int, queue: DispatchQueue) {
        self.seconds = seconds
        limit = UInt64(seconds) * 1_000_000_000
        timer = DispatchSource.makeTimerSource(queue: queue)
        let period = max(1, seconds / 4)
        timer.schedule(deadline: .now() + .seconds(period), repeating: .seconds(period))
        timer.setEventHandler { [weak self] in self?.tick() }
        timer.resume()
    }

    private func tick() {
        let now = DispatchTime.now().uptimeNanoseconds
        guard now > limit else { return }
        reap(now - limit, seconds)
    }

    func stop() {
        timer.cancel()
    }
}

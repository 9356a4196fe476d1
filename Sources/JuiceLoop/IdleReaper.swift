import Dispatch
import JuiceCore
import JuicePlatform
import JuiceLog

/// The loop's once-a-second chores: probation deadlines (`everySecond`), and closing anonymous
/// connections that showed no life for `--idle-timeout` seconds (`reap`), checked a quarter as
/// often as the timeout (at least once a second).
package final class IdleReaper {
    // Loop-confined, not Sendable: the timer fires on the loop queue.
    private let timer: DispatchSourceTimer
    /// The idle timeout; nil: off.
    package let seconds: Int?
    private let period: Int
    private var ticks = 0
    /// Told of the moment to compare against: close whoever's last activity is older than it.
    package var reap: (_ olderThan: UInt64, _ seconds: Int) -> Void = { _, _ in }
    /// Told the time (uptime nanoseconds) each second.
    package var everySecond: (_ now: UInt64) -> Void = { _ in }

    package init(seconds: Int?, queue: DispatchQueue) {
        self.seconds = seconds
        period = max(1, (seconds ?? 4) / 4)
        timer = DispatchSource.makeTimerSource(queue: queue)
        timer.schedule(deadline: .now() + .seconds(1), repeating: .seconds(1))
        timer.setEventHandler { [weak self] in self?.tick() }
        timer.resume()
    }

    private func tick() {
        let now = DispatchTime.now().uptimeNanoseconds
        everySecond(now)
        ticks += 1
        guard let seconds, ticks % period == 0 else { return }
        let limit = UInt64(seconds) * 1_000_000_000
        guard now > limit else { return }
        reap(now - limit, seconds)
    }

    package func stop() {
        timer.cancel()
    }
}

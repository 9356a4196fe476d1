import Dispatch
import JuiceCore
import JuiceDomain
import JuiceStorage
import JuicePlatform
import JuiceLog
import JuiceLoop
import JuiceServices
import JuiceLine
import JuiceHTTP

/// The systemd watchdog's ping (`WATCHDOG=1`), sent by a timer on the server's own loop queue,
/// not a thread of its own: a loop that hangs (a handler that never returns, a deadlock) stops
/// pinging, and systemd restarts the service (`WatchdogSec=`). A thread that pinged regardless
/// would keep a dead server looking alive.
///
/// Each ping also refreshes `STATUS=` when the seq moved, so `systemctl status` shows where the
/// store is.
public final class ServiceWatchdog {
    // Not Sendable: after init, touched only on the loop queue (the timer's handler).
    private let timer: DispatchSourceTimer
    private var statusSeq: UInt64

    /// Starts pinging every `intervalMicroseconds` from `server`'s loop. `status` is the
    /// `STATUS=` text for a seq; the one last sent was for `seq`.
    public init(server: Server, notifier: ServiceNotifier, intervalMicroseconds: UInt64, seq: UInt64,
                status: @escaping @Sendable (UInt64) -> String) {
        let store = server.store
        statusSeq = seq
        timer = DispatchSource.makeTimerSource(queue: server.executor.queue)
        timer.schedule(deadline: .now() + .microseconds(Int(intervalMicroseconds)),
                       repeating: .microseconds(Int(intervalMicroseconds)), leeway: .milliseconds(10))
        timer.setEventHandler { [unowned self] in
            let seq = store.assumeIsolated { $0.ledger.seq }
            var lines = ["WATCHDOG=1"]
            if seq != statusSeq {
                statusSeq = seq
                lines.append("STATUS=" + status(seq))
            }
            notifier.send(lines)
        }
        timer.resume()
    }

    deinit { timer.cancel() }
}

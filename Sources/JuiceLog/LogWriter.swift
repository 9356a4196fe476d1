import Dispatch
import Foundation
import JuicePlatform
import Synchronization

/// Writes log lines to stderr on a thread of its own, from a bounded buffer, so that a stderr
/// nobody reads (a terminal paused with Ctrl-S, a stalled log collector, a full pipe) can never
/// stop the loop or the journal threads: they only append here, under a lock held for an
/// append.
///
/// When the buffer is full, ordinary lines are dropped and counted; once the writer gets a
/// batch out, it writes "N log lines dropped (stderr not keeping up)" right after it, where the
/// gap is. Error and lifecycle lines (`urgent`) are never dropped for ordinary ones: they are
/// admitted past the ordinary limit, up to a hard limit that no server reaches by itself (they
/// are not lines a client can cause at will, see `Log.Category`).
///
/// The thread is a plain `Thread`, not a Dispatch queue: it blocks in write(2) for as long as
/// stderr is stuck, and a blocked Dispatch worker would be taken from the loop's pool.
package final class LogWriter: Sendable {
    /// Bytes of ordinary lines held while stderr does not keep up, and of all lines together.
    package static let ordinaryLimit = 64 << 10
    package static let hardLimit = 256 << 10

    private struct Pending {
        package var lines: [String] = []
        package var bytes = 0
        package var dropped = 0
        /// The writer is between batches, waiting for `wake`.
        package var idle = false
        /// The writer holds a batch it has not finished writing.
        package var writing = false
    }

    private let fd: Int32
    private let pending = Mutex(Pending())
    private let wake = DispatchSemaphore(value: 0)
    /// Builds the drop notice (a whole line with its timestamp) when it is written.
    private let dropNotice: @Sendable (Int) -> String

    package init(fd: Int32, dropNotice: @escaping @Sendable (Int) -> String) {
        self.fd = fd
        self.dropNotice = dropNotice
        let thread = Thread { [self] in
            Platform.nameCurrentThread("juice-log")
            run()
        }
        thread.stackSize = 256 << 10
        thread.start()
    }

    /// Queues a whole line (with its newline). Never blocks on stderr.
    package func enqueue(_ line: String, urgent: Bool) {
        let wakeWriter = pending.withLock { p -> Bool in
            let limit = urgent ? LogWriter.hardLimit : LogWriter.ordinaryLimit
            if p.bytes + line.utf8.count <= limit {
                p.lines.append(line)
                p.bytes += line.utf8.count
            } else {
                // Counted; an idle writer is woken too, so the notice is not left waiting for
                // the next line (a single line over the limit fills no buffer).
                p.dropped += 1
            }
            guard p.idle else { return false }
            p.idle = false
            return true
        }
        if wakeWriter { wake.signal() }
    }

    /// Waits until every queued line is written, or `seconds` pass (stderr may never drain):
    /// before the process exits, so its last lines are not lost where stderr is alive.
    package func flush(seconds: Double) {
        let deadline = Platform.monotonicNanoseconds() + UInt64(seconds * 1e9)
        while pending.withLock({ !$0.lines.isEmpty || $0.writing || $0.dropped > 0 }),
              Platform.monotonicNanoseconds() < deadline {
            usleep(2_000)
        }
    }

    private func run() {
        while true {
            let batch = pending.withLock { p -> (lines: [String], dropped: Int)? in
                guard !p.lines.isEmpty || p.dropped > 0 else {
                    p.idle = true
                    return nil
                }
                // The whole buffer at once: new lines queue behind it while this one is written.
                defer { p.lines = []; p.bytes = 0; p.dropped = 0; p.writing = true }
                return (p.lines, p.dropped)
            }
            guard let batch else {
                wake.wait()
                continue
            }
            // One write(2) per line: a line is never split from its timestamp by another writer
            // of the same stderr.
            for line in batch.lines { Platform.writeAll(fd, line) }
            // The drops happened after every line of this batch was queued and before any line
            // queued after it: this is where the gap is.
            if batch.dropped > 0 { Platform.writeAll(fd, dropNotice(batch.dropped)) }
            pending.withLock { $0.writing = false }
        }
    }
}

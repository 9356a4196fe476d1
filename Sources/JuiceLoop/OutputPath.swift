import Dispatch
import JuiceCore
import JuicePlatform
import JuiceLog

/// The way out for every byte a client is sent, the Redis way: write straight to the socket
/// when nothing is queued ("direct write first"); what the socket does not take waits in the
/// connection's `Outbox`, and writability is watched only while something waits. Output that
/// reflects a change waits in the outbox as "held" until the `DurabilityGate` lets it go.
/// A client whose pending output passes the cap is dropped as a slow consumer.
package final class OutputPath {
    private let poller: any ClientPoller
    private let gate: DurabilityGate
    package let maxOutputBytes: Int
    /// Told when a socket failed or a client passed the cap: the server closes it.
    package var onFailure: (Connection, _ reason: String?) -> Void = { _, _ in }

    package init(poller: any ClientPoller, gate: DurabilityGate, maxOutputBytes: Int) {
        self.poller = poller
        self.gate = gate
        self.maxOutputBytes = maxOutputBytes
    }

    /// Sends now if nothing is queued and nothing waits for the journal, else queues: `lsn` is the
    /// journal position that must be on disk first (0: none).
    package func send(_ conn: Connection, _ bytes: [UInt8], after lsn: UInt64 = 0) {
        var sent = 0
        if conn.outbox.isEmpty && lsn <= gate.durableLSN {
            switch conn.socket.send(bytes, count: bytes.count) {
            case .done(let n):
                if n > 0 { OutputPath.progressed(conn) }
                if n == bytes.count { return }
                sent = n
            case .wouldBlock:
                break
            case .closed, .failed:
                onFailure(conn, nil)
                return
            }
        }
        if conn.outbox.append(bytes[sent...], after: lsn, durable: gate.durableLSN) { gate.hold(conn) }
        if conn.outbox.hasReady { watchWrites(conn, true) }
        // Output held for the journal counts toward the cap like any other.
        checkCap(conn)
    }

    /// Queues a shared event, in the connection's protocol's words. Returns true if it waits for the next flush pass, so that
    /// several events for one display go out in one send; a display with a burst queued is
    /// written to at once, so its outbox holds only what its socket would not take.
    package func enqueue(_ conn: Connection, _ line: [UInt8]) -> Bool {
        conn.outbox.append(line)
        if conn.interest.write {
            // Its socket already refused output: this waits behind it, up to the cap.
            checkCap(conn)
            return false
        }
        if conn.outbox.pendingBytes >= OutputPath.eagerFlushBytes {
            flush(conn)
            return false
        }
        return true
    }

    /// Past this much queued output, a connection is written to without waiting for the flush pass.
    package static let eagerFlushBytes = 32 * 1024

    /// Writes what is ready until the socket refuses. Returns false if the socket failed (the
    /// connection has been handed to `onFailure`).
    @discardableResult
    package func flush(_ conn: Connection) -> Bool {
        // Closed meanwhile (by an earlier callback of the same release): its descriptor is gone.
        guard !conn.isClosed else { return false }
        var failed = false
        var took = false
        conn.outbox.drain { bytes in
            switch conn.socket.send(bytes.baseAddress, count: bytes.count) {
            case .done(let n):
                took = took || n > 0
                return n
            case .wouldBlock: return nil
            case .closed, .failed:
                failed = true
                return nil
            }
        }
        if failed {
            onFailure(conn, nil)
            return false
        }
        if took { OutputPath.progressed(conn) }
        if conn.outbox.hasReady {
            watchWrites(conn, true)
            checkCap(conn)
        } else {
            watchWrites(conn, false)
        }
        return !conn.isClosed
    }

    /// Its socket took output: it is reading (or its kernel buffer still had room), so it is
    /// not idle. An event stream's only sign of life: its client sends nothing.
    private static func progressed(_ conn: Connection) {
        conn.lastActiveSecond = Connection.second(DispatchTime.now().uptimeNanoseconds)
    }

    private func watchWrites(_ conn: Connection, _ on: Bool) {
        guard conn.interest.write != on else { return }
        conn.interest.write = on
        updateInterest(conn, force: true)
    }

    /// Tells the poller what this client waits for now (input while it wants it, output while
    /// some is pending), if that changed.
    package func updateInterest(_ conn: Connection, force: Bool = false) {
        guard !conn.isClosed else { return }
        let read = conn.wantsInput
        guard force || read != conn.interest.read else { return }
        conn.interest.read = read
        do {
            try poller.watch(fd: conn.fd, id: conn.id, read: read, write: conn.interest.write)
        } catch {
            // Nothing would ever tell us this client is ready again: it must go.
            Log.error("cannot watch \(conn.peer): \(error); closing it")
            onFailure(conn, "cannot watch")
        }
    }

    private func checkCap(_ conn: Connection) {
        guard conn.outbox.pendingBytes > maxOutputBytes, !conn.isClosed else { return }
        Log.warning("disconnecting slow client \(conn.peer): \(conn.outbox.pendingBytes) bytes of output pending (limit \(maxOutputBytes))", category: .refusals)
        onFailure(conn, "slow consumer")
    }
}

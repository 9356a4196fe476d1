import Dispatch
import JuiceCore
import JuicePlatform
import JuiceLog

/// The listening socket: accepts in bounded batches, and backs off when the process runs out
/// of descriptors. A level-triggered listener would spin on the pending connection at EMFILE,
/// so accepting pauses (waiting connections stay in the backlog) and resumes when a client
/// closes or after 100 ms, whichever comes first.
package final class Acceptor {
    // Loop-confined, not Sendable: every method and handler runs on the loop queue.
    package let port: Int
    private let socket: Socket
    private let source: DispatchSourceRead
    /// Resumes accepting after a pause. Made at start: at EMFILE, libdispatch could not create
    /// the timer descriptor it needs for a new timer, and accepting would never resume.
    private let resumeTimer: DispatchSourceTimer
    private var started = false
    private var paused = false
    private var cancelled = false
    private var lastWarning: UInt64 = 0
    /// Told of each accepted connection (non-blocking, close-on-exec) with its peer address.
    package var onConnection: (Socket, String) -> Void = { _, _ in }
    /// For the pause warning: how many clients there are.
    package var clientCount: () -> Int = { 0 }

    package init(host: String, port: Int, queue: DispatchQueue) throws(SystemError) {
        let (socket, boundPort) = try Socket.listen(host: host, port: port)
        self.socket = socket
        let fd = socket.fd
        self.port = boundPort
        source = DispatchSource.makeReadSource(fileDescriptor: fd, queue: queue)
        // The descriptor is closed only once the source is done with it.
        source.setCancelHandler { Platform.close(fd) }
        resumeTimer = DispatchSource.makeTimerSource(queue: queue)
        source.setEventHandler { [weak self] in self?.acceptPending() }
        resumeTimer.setEventHandler { [weak self] in self?.resume() }
        resumeTimer.schedule(deadline: .distantFuture)
        resumeTimer.resume()
        // Dispatch's deadlines (this timer, the shutdown deadline) need its timer descriptors:
        // make sure they exist now, not first at a moment of fd exhaustion.
        queue.asyncAfter(deadline: .now() + .milliseconds(1)) {}
    }

    package func start() {
        started = true
        source.resume()
    }

    /// An acceptor that never started (a later part of the server failed to start) still owns
    /// an inactive source, and libdispatch traps when one is released. Cancelled first, then
    /// activated, it runs only its cancel handler, which closes the socket.
    deinit {
        if !started {
            source.cancel()
            source.resume()
        }
        resumeTimer.cancel()
    }

    /// Stops accepting for good; the listening socket closes once the source lets go of it.
    package func stop() {
        guard !cancelled else { return }
        cancelled = true
        // A suspended source must be resumed before it is cancelled and released.
        if paused {
            paused = false
            source.resume()
        }
        source.cancel()
        resumeTimer.cancel()
    }

    /// A descriptor just came free: if accepting was paused for lack of them, try again now
    /// rather than only when the back-off timer fires.
    package func descriptorFreed() {
        if paused { resume() }
    }

    private func acceptPending() {
        // A bounded batch per wake-up keeps one busy listener from starving the clients.
        for _ in 0..<64 {
            guard let (client, peer) = socket.accept() else {
                let code = errno
                switch code {
                case EAGAIN, EWOULDBLOCK:
                    return
                case EINTR, ECONNABORTED, EPROTO:
                    continue
                case EMFILE, ENFILE, ENOBUFS, ENOMEM:
                    pause(because: code)
                    return
                default:
                    Log.error("accept failed: \(Platform.describe(code))")
                    return
                }
            }
            onConnection(client, peer)
            if cancelled { return }
        }
    }

    private func pause(because code: Int32) {
        guard !paused, !cancelled else { return }
        let now = DispatchTime.now().uptimeNanoseconds
        if now - lastWarning > 1_000_000_000 {
            lastWarning = now
            Log.warning("accept: \(Platform.describe(code)); pausing new connections for 100 ms (clients: \(clientCount()))")
        }
        paused = true
        source.suspend()
        resumeTimer.schedule(deadline: .now() + .milliseconds(100))
    }

    private func resume() {
        guard paused, !cancelled else { return }
        paused = false
        resumeTimer.schedule(deadline: .distantFuture)
        source.resume()
    }
}

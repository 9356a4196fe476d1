import JuicePlatform

/// The write end of the self-pipe. A signal handler can only reach globals, and may only do
/// async-signal-safe things: it writes the signal number here and the poll loop does the rest.
nonisolated(unsafe) private var signalPipeWriteFD: Int32 = -1

/// Turns SIGWINCH / SIGINT / SIGTERM into bytes on a pipe the main poll loop watches,
/// so signals are handled in ordinary code, between redraws, never inside a handler.
public final class SignalPipe {
    public let readFD: Int32

    public init(signals: [Int32]) throws {
        // Non-blocking: a burst of signals must never block the handler on a full pipe.
        (readFD, signalPipeWriteFD) = try Self.wakePipe()
        for signo in signals {
            Platform.setSignalHandler(signo, flags: SA_RESTART) { signo in
                let savedErrno = errno
                var byte = UInt8(truncatingIfNeeded: signo)
                _ = write(signalPipeWriteFD, &byte, 1)
                errno = savedErrno
            }
        }
        // A parent may hand down a mask that blocks these (some test runners and process
        // launchers do): then the handler would never run and SIGTERM would be ignored.
        var wanted = sigset_t()
        sigemptyset(&wanted)
        for signo in signals { sigaddset(&wanted, signo) }
        pthread_sigmask(SIG_UNBLOCK, &wanted, nil)
    }

    /// A pipe whose ends never block and are not inherited by a child: the wake-up channel of a
    /// poll loop (here and in Mailbox). A full pipe means a wake-up is already pending.
    static func wakePipe() throws -> (read: Int32, write: Int32) {
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else { throw SystemError("pipe", errno) }
        for fd in fds {
            Platform.setNonBlocking(fd)
            Platform.setCloseOnExec(fd)
        }
        return (fds[0], fds[1])
    }

    /// Signals received since the last call, in order (empty if none).
    public func drain() -> [Int32] {
        var received: [Int32] = []
        var buffer = [UInt8](repeating: 0, count: 64)
        while true {
            let n = read(readFD, &buffer, buffer.count)
            guard n > 0 else { break }
            received += buffer[0..<n].map { Int32($0) }
        }
        return received
    }
}

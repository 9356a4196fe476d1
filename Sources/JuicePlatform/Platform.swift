#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The system calls juice-server, juice-bench and juice-board make, in one place. What is the
/// same on Linux and Darwin is here; what differs (socket flags, SIGPIPE, keepalive, durable
/// sync, glibc's type names) is in Platform+Glibc.swift and Platform+Darwin.swift, one small
/// file per platform, so a call site never needs an `#if`.
public enum Platform {
    /// close(2) under a name a type with its own `close` method can still reach.
    public static func close(_ fd: Int32) {
        _ = closeFD(fd)
    }

    /// open(2), for the same reason.
    public static func open(_ path: String, _ flags: Int32, _ mode: mode_t = 0) -> Int32 {
        openFile(path, flags, mode)
    }

    /// Ends our side of a connection (a FIN after the last reply), keeping it open for reading.
    public static func shutdownWrite(_ fd: Int32) {
        _ = shutdown(fd, Int32(SHUT_WR))
    }

    public static func setNonBlocking(_ fd: Int32) {
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
    }

    public static func setCloseOnExec(_ fd: Int32) {
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
    }

    public static func setOption(_ fd: Int32, _ level: Int32, _ name: Int32, _ value: Int32) {
        var v = value
        _ = setsockopt(fd, level, name, &v, socklen_t(MemoryLayout<Int32>.size))
    }

    /// Nagle off: one-line requests and replies must not wait for each other.
    public static func setNoDelay(_ fd: Int32) {
        setOption(fd, Int32(IPPROTO_TCP), TCP_NODELAY, 1)
    }

    /// send(2) that never raises SIGPIPE: a peer that went away is an EPIPE for this socket, not
    /// the end of the process. (Linux passes MSG_NOSIGNAL; Darwin sockets carry SO_NOSIGPIPE.)
    public static func send(_ fd: Int32, _ bytes: UnsafeRawPointer?, _ count: Int, flags: Int32 = 0) -> Int {
        sendCall(fd, bytes, count, flags | noSignalFlag)
    }

    /// recv(2) that never waits (MSG_DONTWAIT), for sockets a poller or Dispatch source watches:
    /// bytes read, 0 for an orderly close (errno then means nothing), -1 with errno.
    public static func receive(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer) -> Int {
        recv(fd, buffer.baseAddress, buffer.count, Int32(MSG_DONTWAIT))
    }

    /// Nanoseconds on a clock that never jumps (deadlines and timings must not move with NTP).
    @inline(__always)
    public static func monotonicNanoseconds() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return UInt64(ts.tv_sec) &* 1_000_000_000 &+ UInt64(ts.tv_nsec)
    }

    /// CPU time this process has used: user and system seconds.
    public static func processCPUSeconds() -> (user: Double, system: Double) {
        var usage = rusage()
        _ = getrusage(rusageSelf, &usage)
        return (seconds(usage.ru_utime), seconds(usage.ru_stime))
    }

    /// Installs a plain C signal handler (no SA_SIGINFO) with `flags`.
    public static func setSignalHandler(_ signal: Int32, flags: Int32, _ handler: @convention(c) (Int32) -> Void) {
        var action = sigaction()
        setPlainHandler(handler, in: &action)
        sigemptyset(&action.sa_mask)
        action.sa_flags = flags
        sigaction(signal, &action, nil)
    }
}

private func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }

// Module-level spellings, so the static methods above can call the C functions of the same name.
private func closeFD(_ fd: Int32) -> Int32 { close(fd) }
private func openFile(_ path: String, _ flags: Int32, _ mode: mode_t) -> Int32 { open(path, flags, mode) }
private func sendCall(_ fd: Int32, _ bytes: UnsafeRawPointer?, _ count: Int, _ flags: Int32) -> Int {
    send(fd, bytes, count, flags)
}

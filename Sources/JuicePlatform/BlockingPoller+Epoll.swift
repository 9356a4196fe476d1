#if canImport(CEpoll)
import CEpoll
import Glibc

/// A readiness set for a thread that waits on it (juice-bench's loop), level-triggered: epoll on
/// Linux (kqueue on Darwin, in BlockingPoller+Kqueue.swift). Tokens come back with the events.
public final class BlockingPoller {
    public static let readable = EPOLLIN.rawValue
    public static let writable = EPOLLOUT.rawValue
    public static let error = EPOLLERR.rawValue
    public static let hangUp = EPOLLHUP.rawValue

    private let fd: Int32
    /// What one wait can report, at most `capacity` events.
    private let events: UnsafeMutableBufferPointer<epoll_event>
    public var capacity: Int { events.count }

    public init(capacity: Int = 1024) throws(SystemError) {
        fd = epoll_create1(Int32(EPOLL_CLOEXEC))
        guard fd >= 0 else { throw SystemError("epoll_create1") }
        events = .allocate(capacity: capacity)
    }

    deinit {
        Platform.close(fd)
        events.deallocate()
    }

    /// Starts watching `socket` for `interest` (readable and/or writable).
    public func add(_ socket: Int32, token: Int, interest: UInt32) {
        apply(EPOLL_CTL_ADD, socket, token: token, interest: interest)
    }

    public func modify(_ socket: Int32, token: Int, interest: UInt32) {
        apply(EPOLL_CTL_MOD, socket, token: token, interest: interest)
    }

    /// Stops watching `socket`; call before closing it.
    public func remove(_ socket: Int32) {
        _ = epoll_ctl(fd, EPOLL_CTL_DEL, socket, nil)
    }

    private func apply(_ operation: Int32, _ socket: Int32, token: Int, interest: UInt32) {
        var event = epoll_event()
        event.events = interest
        event.data.u64 = UInt64(token)
        if epoll_ctl(fd, operation, socket, &event) != 0 {
            // Only programming errors get here (bad fd, double add); make them loud.
            fatalError("\(SystemError("epoll_ctl(\(operation), fd \(socket))"))")
        }
    }

    /// Waits up to `timeoutMilliseconds` and returns how many events are ready.
    public func wait(timeoutMilliseconds: Int32) -> Int {
        let n = epoll_wait(fd, events.baseAddress, Int32(events.count), timeoutMilliseconds)
        return n < 0 ? 0 : Int(n)   // EINTR (a signal) just means "look again"
    }

    @inline(__always)
    public func token(at index: Int) -> Int {
        Int(truncatingIfNeeded: events[index].data.u64)
    }

    @inline(__always)
    public func flags(at index: Int) -> UInt32 {
        events[index].events
    }
}
#endif

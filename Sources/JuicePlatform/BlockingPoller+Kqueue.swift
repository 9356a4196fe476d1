#if canImport(Darwin)
import Darwin

/// A readiness set for a thread that waits on it (juice-bench's loop), level-triggered: kqueue on
/// Darwin (epoll on Linux, in BlockingPoller+Epoll.swift). A socket gets a read and a write
/// filter, each enabled only while wanted; an event reports one filter, so a socket that is both
/// readable and writable comes back as two events.
public final class BlockingPoller {
    public static let readable: UInt32 = 1 << 0
    public static let writable: UInt32 = 1 << 2
    public static let error: UInt32 = 1 << 3
    public static let hangUp: UInt32 = 1 << 4

    private let fd: Int32
    /// What one wait can report, at most `capacity` events.
    private let events: UnsafeMutableBufferPointer<kevent>
    public var capacity: Int { events.count }

    public init(capacity: Int = 1024) throws(SystemError) {
        fd = kqueue()
        guard fd >= 0 else { throw SystemError("kqueue") }
        Platform.setCloseOnExec(fd)
        events = .allocate(capacity: capacity)
    }

    deinit {
        Platform.close(fd)
        events.deallocate()
    }

    /// Starts watching `socket` for `interest` (readable and/or writable).
    public func add(_ socket: Int32, token: Int, interest: UInt32) {
        apply(socket, token: token, interest: interest)
    }

    public func modify(_ socket: Int32, token: Int, interest: UInt32) {
        apply(socket, token: token, interest: interest)
    }

    /// Stops watching `socket`; call before closing it.
    public func remove(_ socket: Int32) {
        var changes = [change(socket, Int16(EVFILT_READ), UInt16(EV_DELETE), token: 0),
                       change(socket, Int16(EVFILT_WRITE), UInt16(EV_DELETE), token: 0)]
        _ = kevent(fd, &changes, 2, nil, 0, nil)
    }

    /// EV_ADD adds a filter or updates one already there; EV_ENABLE/EV_DISABLE switch it.
    private func apply(_ socket: Int32, token: Int, interest: UInt32) {
        let read = UInt16(EV_ADD) | UInt16(interest & Self.readable != 0 ? EV_ENABLE : EV_DISABLE)
        let write = UInt16(EV_ADD) | UInt16(interest & Self.writable != 0 ? EV_ENABLE : EV_DISABLE)
        var changes = [change(socket, Int16(EVFILT_READ), read, token: token),
                       change(socket, Int16(EVFILT_WRITE), write, token: token)]
        if kevent(fd, &changes, 2, nil, 0, nil) != 0 {
            // Only programming errors get here (bad fd); make them loud.
            fatalError("\(SystemError("kevent(fd \(socket))"))")
        }
    }

    private func change(_ socket: Int32, _ filter: Int16, _ flags: UInt16, token: Int) -> kevent {
        var change = kevent()
        change.ident = UInt(socket)
        change.filter = filter
        change.flags = flags
        change.udata = UnsafeMutableRawPointer(bitPattern: token)
        return change
    }

    /// Waits up to `timeoutMilliseconds` and returns how many events are ready.
    public func wait(timeoutMilliseconds: Int32) -> Int {
        var timeout = timespec(tv_sec: Int(timeoutMilliseconds / 1000), tv_nsec: Int(timeoutMilliseconds % 1000) * 1_000_000)
        let n = kevent(fd, nil, 0, events.baseAddress, Int32(events.count), &timeout)
        return n < 0 ? 0 : Int(n)   // EINTR (a signal) just means "look again"
    }

    @inline(__always)
    public func token(at index: Int) -> Int {
        Int(bitPattern: events[index].udata)
    }

    @inline(__always)
    public func flags(at index: Int) -> UInt32 {
        let event = events[index]
        var flags: UInt32 = event.filter == Int16(EVFILT_WRITE) ? Self.writable : Self.readable
        if event.flags & UInt16(EV_EOF) != 0 { flags |= Self.hangUp }
        if event.flags & UInt16(EV_ERROR) != 0 { flags |= Self.error }
        return flags
    }
}
#endif

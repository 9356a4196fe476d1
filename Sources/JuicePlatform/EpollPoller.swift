#if canImport(CEpoll)
import CEpoll
import Glibc
import Dispatch

/// Readiness of every client socket, from one epoll set that one DispatchSource watches. The
/// Linux poller (the default there).
///
/// Why not a DispatchSource per client: on Linux, libdispatch pays for each readiness event of
/// each source two `epoll_ctl` calls (disarm, re-arm), an `ioctl(FIONREAD)` and a hand-off from
/// its manager thread to a worker: several syscalls and a futex wake per request, most of the
/// server's CPU in the kernel (README, Performance: "Design choices, measured"). With all clients in one epoll set, Dispatch wakes the loop once per batch of ready
/// sockets, and each batch costs one `epoll_wait`. Interest in writability is registered only
/// while a client has output pending (the same rule as a write source resumed only then).
public final class EpollPoller: ClientPoller {
    private let epfd: Int32
    private let queue: DispatchQueue
    private var source: DispatchSourceRead?
    private let capacity = 256
    private let events: UnsafeMutablePointer<epoll_event>

    public init(queue: DispatchQueue) throws(SystemError) {
        epfd = epoll_create1(Int32(EPOLL_CLOEXEC))
        guard epfd >= 0 else { throw SystemError("epoll_create1") }
        self.queue = queue
        events = .allocate(capacity: capacity)
    }

    deinit {
        // Once started, the source's cancel handler owns the epoll descriptor.
        if source == nil { Platform.close(epfd) }
        events.deallocate()
    }

    public func start(onReady: @escaping () -> Void) {
        precondition(source == nil, "a poller starts once")
        let source = DispatchSource.makeReadSource(fileDescriptor: epfd, queue: queue)
        let fd = epfd
        source.setEventHandler(handler: onReady)
        source.setCancelHandler { Platform.close(fd) }
        self.source = source
        source.resume()
    }

    public func cancel() {
        source?.cancel()
    }

    public func add(fd: Int32, id: UInt64) throws(SystemError) {
        try control(EPOLL_CTL_ADD, fd: fd, id: id, read: true, write: false)
    }

    public func watch(fd: Int32, id: UInt64, read: Bool, write: Bool) throws(SystemError) {
        try control(EPOLL_CTL_MOD, fd: fd, id: id, read: read, write: write)
    }

    public func removeAndClose(fd: Int32, id: UInt64) {
        // Closing alone would do (the set forgets a closed descriptor), unless a child process
        // still holds a copy of it; removing first is always right.
        _ = epoll_ctl(epfd, EPOLL_CTL_DEL, fd, nil)
        Platform.close(fd)
    }

    /// One batch of ready clients, without blocking. Level-triggered: whatever is left unread is
    /// reported again on the next batch.
    public func poll(_ handle: (_ id: UInt64, _ readable: Bool, _ writable: Bool, _ hangup: Bool) -> Void) -> Int {
        let count = epoll_wait(epfd, events, Int32(capacity), 0)
        guard count > 0 else { return 0 }
        for i in 0..<Int(count) {
            let flags = events[i].events
            let hangup = flags & (EPOLLHUP.rawValue | EPOLLERR.rawValue) != 0
            handle(events[i].data.u64, flags & EPOLLIN.rawValue != 0, flags & EPOLLOUT.rawValue != 0, hangup)
        }
        return Int(count)
    }

    private func control(_ operation: Int32, fd: Int32, id: UInt64, read: Bool, write: Bool) throws(SystemError) {
        var event = epoll_event()
        event.events = (read ? EPOLLIN.rawValue | EPOLLRDHUP.rawValue : 0) | (write ? EPOLLOUT.rawValue : 0)
        event.data.u64 = id
        guard epoll_ctl(epfd, operation, fd, &event) == 0 else {
            throw SystemError(operation == EPOLL_CTL_ADD ? "epoll_ctl(ADD, fd \(fd))" : "epoll_ctl(MOD, fd \(fd))")
        }
    }
}
#endif

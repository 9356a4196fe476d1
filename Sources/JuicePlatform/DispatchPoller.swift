import Dispatch
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The portable poller: a read source and a write source per client, on the loop's queue
/// (libdispatch runs them on kqueue on Darwin, on epoll on Linux). Darwin always uses it; on
/// Linux `JUICE_POLLER=dispatch` selects it, so CI exercises this path too.
///
/// Dispatch's rules, which the bookkeeping below exists for:
/// - a source is created inactive (suspended once); the write source is resumed only while
///   output is pending, and every suspend is matched by a resume, tracked per source;
/// - a source must not be released while suspended or inactive: removal resumes it after
///   cancelling (so no event handler can run again) to let its cancel handler run;
/// - the descriptor must stay open until both sources' cancel handlers have run (closing it
///   earlier lets the number be reused while libdispatch still has it registered), so it is
///   closed by the last cancel handler, never by the caller.
public final class DispatchPoller: ClientPoller {
    // Loop-confined, not Sendable: every method and every handler runs on `queue`, the loop's
    // serial queue.
    private let queue: DispatchQueue
    private var clients: [UInt64: Client] = [:]
    private var ready: [(id: UInt64, readable: Bool, writable: Bool)] = []
    private var spare: [(id: UInt64, readable: Bool, writable: Bool)] = []
    private var onReady: (() -> Void)?

    private final class Client {
        let read: DispatchSourceRead
        let write: DispatchSourceWrite
        var reading = false
        var writing = false

        init(read: DispatchSourceRead, write: DispatchSourceWrite) {
            self.read = read
            self.write = write
        }
    }

    public init(queue: DispatchQueue) {
        self.queue = queue
    }

    deinit {
        for client in clients.values { cancel(client) }
    }

    public func start(onReady: @escaping () -> Void) {
        self.onReady = onReady
    }

    public func cancel() {
        onReady = nil
        for client in clients.values { cancel(client) }
        clients = [:]
    }

    public func add(fd: Int32, id: UInt64) throws(SystemError) {
        // libdispatch has no way to report a descriptor it cannot watch; check it is open first.
        guard fcntl(fd, F_GETFD) >= 0 else { throw SystemError("watch fd \(fd)") }
        let read = DispatchSource.makeReadSource(fileDescriptor: fd, queue: queue)
        let write = DispatchSource.makeWriteSource(fileDescriptor: fd, queue: queue)
        read.setEventHandler { [weak self] in self?.deliver(id, readable: true, writable: false) }
        write.setEventHandler { [weak self] in self?.deliver(id, readable: false, writable: true) }
        let closer = DescriptorCloser(fd: fd, sources: 2)
        read.setCancelHandler { closer.sourceCancelled() }
        write.setCancelHandler { closer.sourceCancelled() }
        let client = Client(read: read, write: write)
        clients[id] = client
        set(client, reading: true, writing: false)
    }

    public func watch(fd: Int32, id: UInt64, read: Bool, write: Bool) throws(SystemError) {
        guard let client = clients[id] else { throw SystemError("watch fd \(fd)", EBADF) }
        set(client, reading: read, writing: write)
    }

    public func removeAndClose(fd: Int32, id: UInt64) {
        guard let client = clients.removeValue(forKey: id) else {
            Platform.close(fd)
            return
        }
        cancel(client)
    }

    public func poll(_ handle: (_ id: UInt64, _ readable: Bool, _ writable: Bool, _ hangup: Bool) -> Void) -> Int {
        // Swap buffers: `handle` may make more clients ready (they wait for the next round).
        swap(&ready, &spare)
        defer { spare.removeAll(keepingCapacity: true) }
        for event in spare { handle(event.id, event.readable, event.writable, false) }
        return spare.count
    }

    private func deliver(_ id: UInt64, readable: Bool, writable: Bool) {
        guard clients[id] != nil, let onReady else { return }
        ready.append((id, readable, writable))
        onReady()
    }

    /// Resumes or suspends each source so that it runs exactly while wanted.
    private func set(_ client: Client, reading: Bool, writing: Bool) {
        if reading != client.reading {
            client.reading = reading
            if reading { client.read.resume() } else { client.read.suspend() }
        }
        if writing != client.writing {
            client.writing = writing
            if writing { client.write.resume() } else { client.write.suspend() }
        }
    }

    /// Cancel first, so no event handler runs again; then undo our suspension, so the cancel
    /// handlers (which close the descriptor) can run and the sources may be released.
    private func cancel(_ client: Client) {
        client.read.cancel()
        client.write.cancel()
        if !client.reading { client.read.resume() }
        if !client.writing { client.write.resume() }
        client.reading = true
        client.writing = true
    }
}

/// Closes a descriptor once every Dispatch source on it has finished cancelling. Its cancel
/// handlers all run on the loop's queue; the count is atomic anyway, so nothing depends on that.
private final class DescriptorCloser: Sendable {
    private let fd: Int32
    private let left: Atomic<Int>

    init(fd: Int32, sources: Int) {
        self.fd = fd
        left = Atomic(sources)
    }

    func sourceCancelled() {
        if left.subtract(1, ordering: .acquiringAndReleasing).newValue == 0 { Platform.close(fd) }
    }
}

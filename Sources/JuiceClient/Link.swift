import Dispatch
import JuiceCore
import JuicePlatform

/// One TCP connection to juice-server: a non-blocking socket watched by Dispatch sources on the
/// client's serial queue, its bytes framed by JuiceCore's `LineFramer` and classified by
/// `ServerLine`. Nothing blocks: connect, reads and writes all wait for readiness. Every method
/// and callback runs on `queue`. The socket is closed only once both sources' cancel handlers
/// have run (closing earlier could let a new descriptor with the same number be watched).
final class Link: @unchecked Sendable {
    // @unchecked: confined to `queue`, like the engine that owns it.
    private let queue: DispatchQueue
    private let fd: Int32
    private var reads: Watch
    private var writes: Watch
    private var connecting: Bool
    private var closed = false
    private var outbox: [UInt8] = []
    private var framer = LineFramer(maxLineBytes: Link.maxLineBytes)

    /// Far above any line juice-server sends; a longer one is not our server talking.
    static let maxLineBytes = 1 << 20

    var onConnected: () -> Void = {}
    var onLine: (ServerLine) -> Void = { _ in }
    /// Called once, when the connection failed or ended (not after `close()`).
    var onClosed: (String) -> Void = { _ in }

    init(to address: SocketAddress, queue: DispatchQueue) throws(SystemError) {
        self.queue = queue
        let started = try Platform.startConnect(to: address)
        fd = started.fd
        connecting = !started.connected
        let readSource = DispatchSource.makeReadSource(fileDescriptor: fd, queue: queue)
        let writeSource = DispatchSource.makeWriteSource(fileDescriptor: fd, queue: queue)
        reads = Watch(source: readSource)
        writes = Watch(source: writeSource)
        let fd = self.fd
        let group = DispatchGroup()
        group.enter()
        group.enter()
        readSource.setCancelHandler { group.leave() }
        writeSource.setCancelHandler { group.leave() }
        group.notify(queue: queue) { Platform.close(fd) }
        readSource.setEventHandler { [weak self] in self?.readable() }
        writeSource.setEventHandler { [weak self] in self?.writable() }
    }

    /// Starts watching; `onConnected` follows once the connect completed.
    func start() {
        if connecting {
            writes.run(true)
        } else {
            queue.async { [weak self] in self?.connected() }
        }
    }

    func send(_ line: String) {
        guard !closed else { return }
        outbox.append(contentsOf: line.utf8)
        outbox.append(contentsOf: [13, 10]) // CR LF
        if !connecting { flush() }
    }

    /// Ends the connection without calling `onClosed`.
    func close() {
        guard !closed else { return }
        closed = true
        reads.cancel()
        writes.cancel()
        outbox = []
    }

    private func fail(_ reason: String) {
        guard !closed else { return }
        close()
        onClosed(reason)
    }

    private func writable() {
        guard !closed else { return }
        if connecting {
            let error = Platform.connectError(fd)
            guard error == 0 else { return fail("connect: \(Platform.describe(error))") }
            connected()
        } else {
            flush()
        }
    }

    private func connected() {
        guard !closed else { return }
        connecting = false
        writes.run(false)
        reads.run(true)
        onConnected()
        flush()
    }

    private func flush() {
        while !outbox.isEmpty, !closed {
            let n = outbox.withUnsafeBytes { Platform.send(fd, $0.baseAddress, $0.count) }
            if n > 0 {
                outbox.removeFirst(n)
            } else if n < 0, errno == EINTR {
                continue
            } else if n < 0, errno == EAGAIN || errno == EWOULDBLOCK {
                return writes.run(true)
            } else {
                return fail("send: \(Platform.describe(errno))")
            }
        }
        if !closed { writes.run(false) }
    }

    private func readable() {
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        // Bounded per wake-up so a firehose of events cannot starve the queue's other work;
        // what is left is still readable and the source fires again.
        for _ in 0..<16 where !closed {
            let n = chunk.withUnsafeMutableBytes { Platform.receive(fd, into: $0) }
            if n == 0 { return fail("the server closed the connection") } // errno means nothing here
            if n < 0 {
                let code = errno
                if code == EINTR { continue }
                if code == EAGAIN || code == EWOULDBLOCK { return }
                return fail("receive: \(Platform.describe(code))")
            }
            let outcome = chunk.withUnsafeBytes { bytes in
                framer.feed(UnsafeRawBufferPointer(rebasing: bytes[0..<n]), until: { line in
                    self.onLine(ServerLine.parse(String(decoding: line, as: UTF8.self)))
                    return !self.closed
                }).outcome
            }
            if outcome == .lineTooLong { return fail("a line from the server passed \(Link.maxLineBytes) bytes") }
        }
    }
}

/// A Dispatch source, made suspended, and whether it runs now: each suspend matches a resume,
/// and a suspended source is resumed before it is cancelled (else its cancel handler, which
/// closes the socket, would never run).
private struct Watch {
    let source: any DispatchSourceProtocol
    private(set) var running = false

    mutating func run(_ wanted: Bool) {
        guard wanted != running else { return }
        running = wanted
        if wanted { source.resume() } else { source.suspend() }
    }

    mutating func cancel() {
        run(true)
        source.cancel()
    }
}

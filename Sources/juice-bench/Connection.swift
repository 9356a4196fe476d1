import JuiceCore
import JuicePlatform

/// What a connection does during a run.
enum ConnectionRole {
    /// Sends requests (pipelined) and times each reply.
    case requester
    /// Only reads, counting events: event lines (a display, a Redis subscriber), or the
    /// messages of an event stream (a browser on GET /events), per `WatcherFraming`.
    case watcher
    /// Holds a connection open and reads nothing of interest (RSS-per-connection runs).
    case idle
}

enum ConnectionPhase {
    case waitingToConnect
    case connecting
    /// Connected; reading the greeting and the replies to its setup lines.
    case handshaking
    case ready
    case closed
}

/// One client connection and all of its per-connection state. Driven by `LoadEngine` on a
/// single thread; plain stored properties, no locking.
final class Connection {
    let token: Int
    let role: ConnectionRole
    var fd: Int32 = -1
    var phase = ConnectionPhase.waitingToConnect

    /// Greeting lines still to be read and discarded (counted before any other rule applies).
    var greetingLinesLeft: Int
    /// Replies to setup lines (or a probe) still to be read before the connection is ready.
    var handshakeLinesLeft: Int

    /// Bytes written to the socket only partly (or not yet).
    var output: ByteQueue
    /// The start of a line whose end has not arrived yet.
    var partialLine: ByteQueue
    /// True while epoll also watches for writability (only while output is backed up).
    var watchingWritable = false

    // Requester state.
    var sendTimes: TimestampRing
    /// Requests queued into `output` since the last flush; stamped with the flush time.
    var unstampedRequests = 0
    var outstanding = 0
    var nextRequest = 0
    /// An HTTP requester's reader of replies; unused otherwise.
    var httpReplies = HTTPReplyReader()
    /// Connecting again after the server ended keep-alive: ready as soon as connected.
    var reconnecting = false

    // Watcher state.
    var eventsSeen = 0
    /// Events that had no order to be attributed to (more events than orders).
    var unattributedEvents = 0
    var firstSequence: UInt64?
    var lastSequence: UInt64?
    /// Events whose seq was missing or not exactly one more than the previous one.
    var sequenceFaults = 0
    /// An event-stream watcher's reader (HTTP head, then SSE blocks); unused otherwise.
    var stream = EventStreamReader()

    init(token: Int, role: ConnectionRole, greetingLines: Int, handshakeLines: Int, pipeline: Int) {
        self.token = token
        self.role = role
        greetingLinesLeft = greetingLines
        handshakeLinesLeft = handshakeLines
        // Small initial buffers: 10,000 idle connections should not cost the generator much.
        output = ByteQueue(capacity: role == .requester ? 4096 : 256)
        partialLine = ByteQueue(capacity: 256)
        sendTimes = TimestampRing(capacity: role == .requester ? pipeline : 1)
    }

    deinit {
        if fd >= 0 { close(fd) }
        output.deallocate()
        partialLine.deallocate()
        sendTimes.deallocate()
    }
}

/// An HTTP client: the loop's `Connection` plus what the HTTP side keeps for it: the request
/// being read and, once it asked for `/events`, that it is an event stream.
final class HTTPConnection: Connection {
    /// The request head as it arrives.
    var reader = HTTPRequestReader()
    /// When its current request began (for the request deadline).
    var requestStartedAt: UInt64
    /// It asked for `/events`: one long response that only listens.
    var isStream = false
    /// An answer is on its way (maybe waiting for the journal): the next request is read once
    /// it is out. One request at a time, so a client cannot pile answers up.
    var answering = false
    /// Requests answered on this connection (for the keep-alive cap).
    var served: UInt16 = 0

    init(id: UInt64, fd: Int32, peer: String, listener: UInt8, now: UInt64) {
        requestStartedAt = now
        // Events only once it asks for /events, so none go out ahead of a response while it
        // is still sending its request.
        super.init(id: id, fd: fd, peer: peer, listener: listener, events: .stream, eventsOn: false, now: now)
    }

    override var onlyListens: Bool { isStream }
    override var wantsInput: Bool { super.wantsInput && !answering }
}

import JuiceCore

/// One `stock()` stream. Its buffer is bounded; when the reader falls that far behind, changes
/// are not dropped silently: the next thing it gets is the whole state, marked as a resync.
/// It also keeps what the stream has been told, so that `.full` comes first and
/// `.offline`/`.online` only mark real changes of the connection (`JuiceClient.stock()`).
struct Subscriber {
    let continuation: AsyncStream<ShopUpdate>.Continuation
    var overflowed = false
    /// A `.full` was yielded: until then nothing else is (a stream waits for the server).
    var hasState = false
    /// The last connection element yielded was `.offline`: the next `.online` is news.
    var offline = false

    /// Whether `update` is news to this stream.
    func wants(_ update: ShopUpdate) -> Bool {
        switch update {
        case .full: return true
        case .change, .offline: return hasState
        case .online: return offline
        }
    }

    mutating func yielded(_ update: ShopUpdate) {
        switch update {
        case .full: hasState = true
        case .offline: offline = true
        case .online: offline = false
        case .change: break
        }
    }
}

extension Engine {
    /// A call from a task (on the queue).
    func submit(_ request: Request) {
        if closed { return request.finish(.failure(JuiceError.closed)) }
        // The task's cancellation handler may have run before this got onto the queue.
        if request.isCancelled { return request.finish(.failure(CancellationError())) }
        transmit(request)
    }

    /// The calling task was cancelled: it gets its error now (`Request.cancellation`:
    /// CancellationError, or orderInDoubt/changeInDoubt once the line went out). A call not yet
    /// sent is forgotten; one already sent keeps its place, so its reply is read and dropped
    /// rather than handed to the next caller.
    func cancel(_ request: Request) {
        guard request.continuation != nil else { return }
        queued.removeAll { $0 === request }
        held.removeAll { $0 === request }
        request.finish(.failure(request.cancellation))
    }

    /// A new `stock()` stream: the state now if there is one, then every update.
    func subscribe(_ id: Int, _ continuation: AsyncStream<ShopUpdate>.Continuation) {
        guard !closed else { return continuation.finish() }
        var subscriber = Subscriber(continuation: continuation)
        if let state = sync.state {
            continuation.yield(.full(state, resync: false))
            subscriber.yielded(.full(state, resync: false))
            // In step means the connection is ready and the sync has its base; otherwise the
            // stream is told it is behind, and `.online` follows when it is back in step.
            if !(isReady && sync.isSynced) {
                let offline = ShopUpdate.offline(attempt: attempt, reason: "\(lastFailure)")
                continuation.yield(offline)
                subscriber.yielded(offline)
            }
        }
        subscribers[id] = subscriber
        if !syncWanted {
            syncWanted = true
            if isReady { startSync() }
        }
        wake()
    }

    func unsubscribe(_ id: Int) {
        subscribers[id] = nil
    }

    /// Hands an update to every stream, in order.
    func publish(_ update: ShopUpdate) {
        for (id, var subscriber) in subscribers where subscriber.wants(update) {
            var item = update
            if subscriber.overflowed {
                // The stream lost changes: only a whole state can put it back in step.
                switch update {
                case .change(_, _, let state), .full(let state, _): item = .full(state, resync: true)
                case .offline, .online: break
                }
            }
            switch subscriber.continuation.yield(item) {
            case .dropped:
                if case .change = item { subscriber.overflowed = true }
                if case .full = item { subscriber.overflowed = true }
            case .enqueued:
                if case .full = item { subscriber.overflowed = false }
                subscriber.yielded(item)
            case .terminated:
                subscribers[id] = nil
                continue
            @unknown default:
                break
            }
            subscribers[id] = subscriber
        }
    }
}

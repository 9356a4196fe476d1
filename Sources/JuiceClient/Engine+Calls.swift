import JuiceCore

/// One `stock()` stream. Its buffer is bounded; when the reader falls that far behind, changes
/// are not dropped silently: the next thing it gets is the whole state, marked as a resync.
struct Subscriber {
    let continuation: AsyncStream<ShopUpdate>.Continuation
    var overflowed = false
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
        request.finish(.failure(request.cancellation))
    }

    /// A new `stock()` stream: the state now if there is one, then every update.
    func subscribe(_ id: Int, _ continuation: AsyncStream<ShopUpdate>.Continuation) {
        guard !closed else { return continuation.finish() }
        subscribers[id] = Subscriber(continuation: continuation)
        if let state = sync.state {
            continuation.yield(.full(state, resync: false))
            if !isReady { continuation.yield(.offline(attempt: attempt, reason: "\(lastFailure)")) }
        }
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
        for (id, var subscriber) in subscribers {
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

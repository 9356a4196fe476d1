import JuiceCore
import JuicePlatform

/// What a received line means, by connection role. This is the hot path: lines are byte
/// ranges inside the receive buffer, never Strings.
extension LoadEngine {
    /// `line` comes without its line ending (see `LineSplitter`).
    @inline(__always)
    func handleLine(_ connection: Connection, _ line: UnsafeRawPointer, length: Int, now: Nanos) {
        // The greeting comes first, whatever it looks like, unless it is a refusal (e.g.
        // `ERR BUSY` or Redis's `-ERR max number of clients reached`) instead of a greeting.
        if connection.greetingLinesLeft > 0 {
            if isErrorReply(line, length: length) { refuse(line, length: length, what: "a connection") }
            connection.greetingLinesLeft -= 1
            finishHandshakeIfComplete(connection)
            return
        }
        switch connection.role {
        case .requester:
            if wire.replySkip.anyIsPrefix(of: line, length: length) { return }
            if connection.handshakeLinesLeft > 0 {
                if isErrorReply(line, length: length) { refuse(line, length: length, what: "a setup line") }
                connection.handshakeLinesLeft -= 1
                finishHandshakeIfComplete(connection)
                return
            }
            handleReply(connection, line, length: length, now: now)
        case .watcher where wire.watcherFraming == .eventStream:
            handleStreamLine(connection, line, length: length, now: now)
        case .watcher:
            // Watch-setup replies (e.g. Redis's 6-line SUBSCRIBE reply) are discarded whole.
            if connection.handshakeLinesLeft > 0 {
                connection.handshakeLinesLeft -= 1
                finishHandshakeIfComplete(connection)
                return
            }
            if wire.eventMatch.anyIsPrefix(of: line, length: length) {
                let sequence = checkSequence ? WireReader.seq(in: UnsafeRawBufferPointer(start: line, count: length)) : nil
                handleEvent(connection, sequence: sequence, now: now)
            }
        case .idle:
            if connection.handshakeLinesLeft > 0 && !wire.replySkip.anyIsPrefix(of: line, length: length) {
                if isErrorReply(line, length: length) { refuse(line, length: length, what: "the probe") }
                connection.handshakeLinesLeft -= 1   // the probe's reply: the server is serving us
                finishHandshakeIfComplete(connection)
            }
        }
    }

    /// Handshake failures are fatal: measuring a server that refuses clients means nothing.
    private func refuse(_ line: UnsafeRawPointer, length: Int, what: String) {
        let reply = String(decoding: UnsafeRawBufferPointer(start: line, count: min(length, 200)), as: UTF8.self)
        if failure == nil { failure = .fatal("the server at \(endpoint) refused \(what): \(reply)") }
    }

    @inline(__always)
    private func finishHandshakeIfComplete(_ connection: Connection) {
        if connection.phase == .handshaking && connection.greetingLinesLeft == 0 && connection.handshakeLinesLeft == 0 {
            becomeReady(connection)
        }
    }

    @inline(__always)
    private func isInWindow(_ time: Nanos) -> Bool {
        time >= windowStart && time < windowEnd
    }

    /// A reply completes the oldest request in flight on its connection (replies come in
    /// request order); while the run is sending, it is replaced by a new request at once.
    @inline(__always)
    private func handleReply(_ connection: Connection, _ line: UnsafeRawPointer, length: Int, now: Nanos) {
        let failed = isErrorReply(line, length: length)
        guard completeRequest(connection, failed: failed, now: now) else { return }
        if failed {
            noteError(String(decoding: UnsafeRawBufferPointer(start: line, count: min(length, 200)), as: UTF8.self))
        } else if checkSequence {
            noteOrderSequence(WireReader.seq(in: UnsafeRawBufferPointer(start: line, count: length)))
        }
    }

    /// The accounting every reply gets, line or HTTP: its latency, its window, and the next
    /// request while the run is sending. False if no request was in flight for it.
    @inline(__always)
    func completeRequest(_ connection: Connection, failed: Bool, now: Nanos) -> Bool {
        guard connection.sendTimes.count > 0 else {
            unexpectedReplies += 1
            return false
        }
        let sentAt = connection.sendTimes.popOldest()
        connection.outstanding -= 1
        totalReplies += 1
        if isInWindow(now) {
            windowReplies += 1
            latency.record(now &- sentAt)
            if failed { windowErrors += 1 }
        }
        if sending { queueRequest(connection) }
        return true
    }

    /// `reply`: the error reply (its first 200 bytes are enough), built only for the first.
    func noteError(_ reply: @autoclosure () -> String) {
        totalErrors += 1
        if firstErrorReply == nil {
            firstErrorReply = reply()
        }
        // A failed order produces no event. With one order in flight it is the newest one,
        // so take it out of the list that events are attributed to.
        if pacedFanout && !orderSendTimes.isEmpty { orderSendTimes.removeLast() }
    }

    private func noteOrderSequence(_ sequence: UInt64?) {
        guard let sequence else {
            orderSequenceFaults += 1
            return
        }
        if let last = lastOrderSequence, sequence != last &+ 1 { orderSequenceFaults += 1 }
        if firstOrderSequence == nil { firstOrderSequence = sequence }
        lastOrderSequence = sequence
    }

    @inline(__always)
    func queueRequest(_ connection: Connection) {
        let request = wire.requests[connection.nextRequest]
        connection.nextRequest += 1
        if connection.nextRequest == wire.requests.count { connection.nextRequest = 0 }
        connection.output.append(request.base, count: request.count)
        connection.outstanding += 1
        connection.unstampedRequests += 1
    }

    /// An event stream's line. Its first message is the full state: it makes the stream
    /// ready and sets where its seqs start (the first change must be the next seq); every
    /// later message is one event.
    @inline(__always)
    private func handleStreamLine(_ connection: Connection, _ line: UnsafeRawPointer, length: Int, now: Nanos) {
        switch connection.stream.line(line, length: length) {
        case .none, .emptyBlock:
            return
        case .refused(let why):
            if failure == nil { failure = .fatal("the server at \(watcherEndpoint) refused an event stream: \(why)") }
        case .message(let id):
            if connection.handshakeLinesLeft > 0 {
                if id == nil { connection.sequenceFaults += 1 }
                connection.lastSequence = id
                connection.handshakeLinesLeft = 0
                finishHandshakeIfComplete(connection)
                return
            }
            handleEvent(connection, sequence: id, now: now)
        }
    }

    /// The k-th event on a watcher belongs to the k-th order sent (FIFO); its fan-out latency
    /// is from that order's send to now. `sequence`: its seq, when sequences are checked.
    @inline(__always)
    private func handleEvent(_ connection: Connection, sequence: UInt64?, now: Nanos) {
        let k = connection.eventsSeen
        connection.eventsSeen += 1
        totalEvents += 1
        let measured = isInWindow(now)
        if measured { windowEvents += 1 }
        if k < orderSendTimes.count {
            if measured { fanoutLatency.record(now &- orderSendTimes[k]) }
        } else {
            connection.unattributedEvents += 1
        }
        if checkSequence {
            guard let sequence else {
                connection.sequenceFaults += 1
                return
            }
            if let last = connection.lastSequence, sequence != last &+ 1 { connection.sequenceFaults += 1 }
            if connection.firstSequence == nil { connection.firstSequence = sequence }
            connection.lastSequence = sequence
        }
    }
}

import JuicePlatform

/// Requesters that speak HTTP (`RequestFraming.httpPost`): replies are HTTP responses read by
/// `HTTPReplyReader`, and a server that ends keep-alive (`Connection: close`, e.g. its cap on
/// requests per connection) is answered as a browser would: a new connection, counted in
/// `reconnects`, not as a loss.
extension LoadEngine {
    func readHTTPReplies(_ connection: Connection, count: Int, now: Nanos) {
        var closes = false
        let outcome = connection.httpReplies.feed(UnsafeRawBufferPointer(start: scratch, count: count)) { reply in
            let failed = reply.status != 200
            if completeRequest(connection, failed: failed, now: now), failed { noteError(reply.statusLine) }
            if reply.closes { closes = true }
            return !closes
        }
        if case .malformed(let why) = outcome {
            if failure == nil { failure = .fatal("the server at \(endpoint) sent a reply juice-bench cannot read: \(why)") }
            return
        }
        if closes { reconnect(connection) }
    }

    /// Closes this connection and opens another in its place. Requests sent on it and not
    /// answered are sent again on the new one (a server that says `close` answers no more).
    private func reconnect(_ connection: Connection) {
        epoll.remove(connection.fd)
        close(connection.fd)
        connection.fd = -1
        connection.httpReplies = HTTPReplyReader()
        let unanswered = connection.sendTimes.count
        for _ in 0..<unanswered { _ = connection.sendTimes.popOldest() }
        connection.outstanding -= unanswered
        if sending { for _ in 0..<unanswered { queueRequest(connection) } }
        do {
            connection.fd = try Socket.startConnect(to: address)
        } catch {
            failure = .fatal("cannot connect to \(endpoint) again: \(error.message)")
            connection.phase = .closed
            return
        }
        reconnects += 1
        connection.reconnecting = true
        connection.watchingWritable = false
        connection.phase = .connecting
        epoll.add(connection.fd, token: connection.token, interest: BlockingPoller.writable)
    }

    /// Connected again: ready at once (HTTP has no greeting), and what waited goes out.
    func resumeAfterReconnect(_ connection: Connection) {
        connection.reconnecting = false
        connection.phase = .ready
        epoll.modify(connection.fd, token: connection.token, interest: BlockingPoller.readable)
        if connection.unstampedRequests > 0 || !connection.output.isEmpty { flush(connection) }
    }
}

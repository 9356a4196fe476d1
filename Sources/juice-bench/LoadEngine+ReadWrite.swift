import JuicePlatform

/// The bytes of every connection: reads into the engine's one scratch buffer, split into lines
/// (or HTTP replies, LoadEngine+HTTP.swift) for the roles to handle, and writes that take what
/// the socket takes and wait for writability for the rest.
extension LoadEngine {
    /// One recv() into the shared scratch buffer, then every complete line is handled in
    /// place; an incomplete tail is kept for the next read. Replies this produced (new
    /// requests) are written in one batch afterwards.
    func readAvailable(_ connection: Connection) {
        let received = recv(connection.fd, scratch, Self.scratchSize, 0)
        if received > 0 {
            let now = monotonicNow()
            if wire.httpRequests && connection.role == .requester { readHTTPReplies(connection, count: received, now: now) }
            else { splitLines(connection, count: received, now: now) }
            let open = connection.phase == .ready || connection.phase == .handshaking
            if open && (connection.unstampedRequests > 0 || !connection.output.isEmpty) {
                flush(connection)
            }
        } else if received == 0 {
            lose(connection, reason: "closed by the server")
        } else if errno != EAGAIN && errno != EINTR {
            lose(connection, reason: errnoDescription())
        }
    }

    @inline(__always)
    private func splitLines(_ connection: Connection, count: Int, now: Nanos) {
        let split = LineSplitter.split(scratch, count: count, carrying: &connection.partialLine,
                                       maxLineLength: Self.maxLineLength) { line, length in
            handleLine(connection, line, length: length, now: now)
            return connection.phase != .closed
        }
        if split == .overlong {
            failure = .fatal("the server at \(endpoint(of: connection)) sent a line longer than \(Self.maxLineLength) bytes")
        }
    }

    /// Stamps requests queued since the last flush with the time just before send(), then
    /// writes as much as the socket takes; the rest waits for writability.
    func flush(_ connection: Connection) {
        if connection.unstampedRequests > 0 {
            let now = monotonicNow()
            for _ in 0..<connection.unstampedRequests {
                connection.sendTimes.push(now)
                if recordsOrders { orderSendTimes.append(now) }
            }
            connection.unstampedRequests = 0
        }
        while !connection.output.isEmpty {
            let sent = Platform.send(connection.fd, connection.output.readPointer, connection.output.count)
            if sent > 0 {
                connection.output.consume(sent)
            } else if sent < 0 && errno == EINTR {
                continue
            } else if sent < 0 && errno == EAGAIN {
                if !connection.watchingWritable {
                    connection.watchingWritable = true
                    epoll.modify(connection.fd, token: connection.token, interest: BlockingPoller.readable | BlockingPoller.writable)
                }
                return
            } else {
                lose(connection, reason: errnoDescription())
                return
            }
        }
        if connection.watchingWritable {
            connection.watchingWritable = false
            epoll.modify(connection.fd, token: connection.token, interest: BlockingPoller.readable)
        }
    }
}

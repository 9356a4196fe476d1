import Dispatch
import JuiceCore
import JuiceDomain
import JuicePlatform
import JuiceLog
import JuiceLoop
import JuiceServices

/// One HTTP client: requests answered one at a time (HTTP/1.1 kept alive up to a cap), the
/// writes among them through the same store, journal and broadcast as their line twins; or,
/// for `GET /events`, an event stream that stays open and takes live changes like a display.
///
/// The edge is as hardened as the TCP side: the request is read on bytes and capped
/// (`HTTPRequestReader`), a client that never finishes it is closed after a deadline, an idle
/// kept-alive one after a shorter one, and an event stream that stops reading is dropped past
/// the output cap.
package final class HTTPSession: ConnectionSession {
    /// Its connection, as a session may use it (the only way to the loop).
    private let link: SessionLink
    unowned let http: HTTPProtocol
    /// The request head as it arrives.
    private var reader = HTTPRequestReader()
    /// When its current request began (for the request deadline).
    private var requestStartedAt: UInt64
    /// It asked for `/events`: one long response that only listens.
    private var isStream = false
    /// An answer is on its way (maybe waiting for the journal): the next request is read once
    /// it is out. One request at a time, so a client cannot pile answers up.
    private var answering = false
    /// Requests answered on this connection (for the keep-alive cap).
    private var served: UInt16 = 0
    /// The paired till its writes came from, once one did.
    private var till: TillID?
    /// Output its last turn made beyond a turn's share (`FairTurn.maxOutputBytes`), with more
    /// requests waiting: its next turns pass until it is paid off (see `drained`).
    private var owed = 0
    /// The rest of a large answer, sent as the socket takes it (`PacedBody`, `drained`).
    private var paced = PacedBody()
    /// Whether it counts in `http.backupsSending` (HTTPSession+Backup.swift).
    var holdsBackupSlot = false

    package init(_ link: SessionLink, protocol http: HTTPProtocol) {
        self.link = link
        self.http = http
        requestStartedAt = DispatchTime.now().uptimeNanoseconds
    }

    package var wantsInput: Bool { !answering }
    package var onlyListens: Bool { isStream }

    package func accepted() {
        http.awaiting[link.id] = self
    }

    package func closed() {
        releaseBackupSlot()
        if let till { link.left(till) }
        http.open -= 1
        http.awaiting.removeValue(forKey: link.id)
        http.streams.removeValue(forKey: link.id)
    }

    /// Event streams simply end (browsers reconnect by themselves).
    package func shuttingDown(byeAfter lsn: UInt64) {}

    /// One read's bytes: a request (head, then its body) as it arrives. Reading pauses while a
    /// request is answered; bytes after it wait in the reader. Bytes on an open stream are
    /// discarded unread.
    package func received(_ bytes: UnsafeRawBufferPointer) {
        guard !isStream, link.isOpen else { return }
        // A kept-alive connection was idle until now: its request's deadline starts here.
        if !reader.hasStarted { requestStartedAt = DispatchTime.now().uptimeNanoseconds }
        handle(reader.feed(bytes))
    }

    /// The peer finished sending: what it is owed still goes out, then it closes.
    package func inputEnded() {
        http.awaiting.removeValue(forKey: link.id)
        link.finish()
    }

    /// Answers what the reader made of the input: requests one at a time, each read only once
    /// the one before is out, at most a turn's worth (`FairTurn.maxRequests`, its output, or one
    /// computed report) before the other connections get theirs.
    private func handle(_ first: HTTPRequestReader.Outcome) {
        var outcome = first
        var turn = link.turn(limit: FairTurn.maxRequests)
        while true {
            switch outcome {
            case .incomplete:
                return
            case .refused(let status, let message):
                http.awaiting.removeValue(forKey: link.id)
                Log.warning("HTTP \(status.code) for \(link.peer): \(message)", category: .refusals)
                send(HTTPResponse.plain(status, message).bytes(), keepAlive: false)
                return
            case .refusedBody(let request, let status, let message):
                // Its body cannot be read, so nothing after it can be framed: answer and close.
                http.awaiting.removeValue(forKey: link.id)
                let (body, logged) = HTTPRoutes.bodyRefusal(request, status, message)
                Log.warning("HTTP \(body.status.code) for \(link.peer): \(logged)", category: .refusals)
                send(body.bytes(includeBody: request.method != "HEAD"), keepAlive: false)
                return
            case .complete(let request):
                http.awaiting.removeValue(forKey: link.id)
                served &+= 1
                turn.countLine()
                turn.countOutput(respond(to: request))
                guard !link.isFinishing, !isStream else { return }
                // Kept alive: the next request once this answer is out (it may wait for the journal).
                guard !link.hasPendingOutput, paced.isEmpty else {
                    answering = true
                    // A paced answer's bytes are waited out once it is all out (`drained`), as
                    // any large answer's are.
                    if !paced.isEmpty { owed = max(0, turn.outputBytes - FairTurn.maxOutputBytes) }
                    if !link.hasPendingOutput { link.yieldTurn() }
                    return
                }
                if turn.isOver() && reader.hasStarted {
                    // More requests are pipelined behind it: they wait, unread, for its next turn
                    // (`drained`), after the connections already waiting.
                    answering = true
                    owed = max(0, turn.outputBytes - FairTurn.maxOutputBytes)
                    link.yieldTurn()
                    return
                }
                outcome = readNext()
            }
        }
    }

    /// Waits for the connection's next request (kept alive), going on with what it already sent.
    private func readNext() -> HTTPRequestReader.Outcome {
        answering = false
        requestStartedAt = DispatchTime.now().uptimeNanoseconds
        http.awaiting[link.id] = self
        return reader.next()
    }

    /// Whether the connection stays for another request: HTTP/1.1 unless it said
    /// `Connection: close`, under the cap, and not while the server drains.
    private func keepsAlive(_ request: HTTPRequest) -> Bool {
        let close = request.header("connection")?.lowercased().split(separator: ",").contains { $0.filter { $0 != " " } == "close" } ?? false
        return request.minorVersion == 1 && !close && served < HTTPProtocol.maxRequestsPerConnection && link.serverIsAccepting
    }

    /// Answers one request; returns the bytes of its answer (for the turn's output; 0 for an
    /// event stream, which goes on in its own turns).
    private func respond(to request: HTTPRequest) -> Int {
        let head = request.method == "HEAD"
        let client = http.proxies.isEmpty ? RequestClient(peer: link.peer) : RequestClient(request, peer: link.peer, proxies: http.proxies)
        let admitted = link.countRequest(from: client.address)
        if !admitted {
            // Over its client's share (or on probation with no place free): refused, unless it
            // may still sign in (credentials: answered, and kept only if they made it known;
            // never a stream) or asks `/healthz` (answered and closed, so a probe sees the
            // server while strangers fill it).
            let path = ReadRoute(rawValue: request.path)
            guard path == .healthz || (request.carriesCredentials && path != .events) else {
                let full = link.onProbation
                Log.warning("refused \(client.description): \(full ? "max clients (\(http.loop.config.maxClients)) reached" : "max clients per address (\(http.loop.config.maxClientsPerAddress ?? 0)) reached")",
                            category: .busy)
                let busy = full ? HTTPResponse.busy : HTTPResponse.busyForAddress
                send(busy, keepAlive: false)
                return busy.count
            }
        }
        let isBackup = request.path == ReadRoute.backup.rawValue && !head
        if isBackup, let refused = refuseBackupWhileBusy() { return refused }
        http.routing = link
        let route = http.routes.route(request, client: client)
        http.routing = nil
        // After routing: a valid `Bearer` made it known (`routes.signedIn`).
        let keepAlive = keepsAlive(request) && (admitted || link.isKnown)
        switch route {
        case .response(let response, let lsn):
            let part = PacedBody.partSize(maxOutputBytes: http.loop.config.maxOutputBytes)
            guard !head, response.body.count > part else {
                let bytes = response.bytes(includeBody: !head, keepAlive: keepAlive)
                send(bytes, after: lsn, keepAlive: keepAlive)
                return bytes.count
            }
            if isBackup { takeBackupSlot() }
            let first = paced.start(head: response.bytes(includeBody: false, keepAlive: keepAlive), body: response.body, part: part, keepAlive: keepAlive)
            send(first, after: lsn, keepAlive: true)
            return first.count
        case .change(let response, let lsn, let events, let till):
            if let till { signedIn(as: till) }
            // The answer first, then the broadcast: like a line client, the writer gets its
            // answer before the event of its change goes anywhere.
            let bytes = response.bytes(keepAlive: keepAlive)
            send(bytes, after: lsn, keepAlive: keepAlive)
            link.publish(events)
            return bytes.count
        case .tills(let response, let lsn, let paired, let revoked):
            if let paired { signedIn(as: paired) }
            let bytes = response.bytes(includeBody: !head, keepAlive: keepAlive)
            send(bytes, after: lsn, keepAlive: keepAlive)
            if let revoked { link.closeConnections(of: revoked) }
            return bytes.count
        case .eventStream(let lastEventID):
            guard !head else {
                send(HTTPResponse.eventStreamHeadOnly, keepAlive: false)
                return 0
            }
            openStream(after: lastEventID)
            return 0
        }
    }

    /// This connection speaks for a paired till now (the manager's list shows it connected;
    /// revoking the till closes it).
    ///
    /// A trusted proxy's connection carries many clients' requests (Caddy reuses its upstream
    /// connections): it is no till's, so revoking a till never closes it (the till's next
    /// request is refused all the same), and the till counts as connected by when it was seen.
    private func signedIn(as till: TillID) {
        if http.proxies.trusts(peer: link.peer) {
            http.loop.tills.seenThroughProxy(till)
            return
        }
        if let previous = self.till, previous != till { link.left(previous) }
        self.till = till
        link.signedIn(as: till)
    }

    /// One response; without keep-alive the connection then closes (once its output is out).
    func send(_ bytes: [UInt8], after lsn: UInt64 = 0, keepAlive: Bool) {
        link.send(bytes, after: lsn)
        // A failed send (the peer reset) closed it already: closing again would act on a
        // descriptor number that may be someone else's by now.
        if link.isClosed || keepAlive { return }
        link.finish()
    }

    /// The stream starts with the full state (or, with `Last-Event-ID`, the changes after it,
    /// as SINCE does), then live changes follow with no gap and no duplicate. The head waits
    /// for the journal like the state it precedes, and so does everything after it.
    private func openStream(after lastEventID: EventID?) {
        isStream = true
        http.streams[link.id] = self
        let (plan, lsn) = http.loop.store.assumeIsolated { ($0.catchUpPlan(resuming: lastEventID), $0.lastLSN) }
        var start = HTTPProtocol.streamStart
        if case .fullState(let all) = plan.start { http.appendEvent(seq: plan.current, all, to: &start) }
        link.send(start, after: lsn)
        if link.isClosed { return }
        link.listen(from: plan.current + 1, catchUp: plan.catchUp)
        drained()
    }

    /// Output went out, or its next turn came: an event stream goes on with its catch-up; an
    /// answered request closes, or, kept alive, reads its next request.
    package func drained() {
        if link.isFinishing {
            link.finish()
            return
        }
        if answering {
            guard !link.hasPendingOutput else { return }
            if !paced.isEmpty {
                let (bytes, last) = paced.next()
                if last { releaseBackupSlot() }
                owed += bytes.count
                send(bytes, keepAlive: !last || paced.keepAlive)
                if !link.hasPendingOutput, !link.isClosed, !link.isFinishing { link.yieldTurn() }
                return
            }
            if owed > 0 {
                // A turn that wrote more than its share (one large answer: a CSV, a page) waits
                // out the difference, a share per pass, as in deficit round robin: fair by
                // bytes, not by requests. Sending is what a large answer costs (a kept 75 KB
                // days.csv: its copy into the socket), and 200 clients pipelining it kept a
                // probe waiting 170-330 ms while each got an answer per pass.
                owed -= FairTurn.maxOutputBytes
                link.yieldTurn()
                return
            }
            handle(readNext())
            return
        }
        _ = link.pumpCatchUp()
    }

    /// Closes it if its request is overdue (or, kept alive, it stayed idle too long).
    package func checkDeadline(now: UInt64, deadline: UInt64, idle: UInt64) {
        if reader.hasStarted {
            if now - requestStartedAt > deadline {
                link.close(reason: "no complete request within \(http.requestDeadline) s")
            }
        } else if now - requestStartedAt > (served == 0 ? deadline : idle) {
            link.close(reason: served == 0 ? "no request within \(http.requestDeadline) s" : "idle keep-alive")
        }
    }

    /// A `: ping` comment on an open stream that is not catching up.
    package func ping() {
        guard !link.inCatchUp, !link.isFinishing else { return }
        link.queue(Wire.streamPing)
    }
}

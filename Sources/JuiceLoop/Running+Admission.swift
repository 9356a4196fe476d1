import Dispatch
import JuiceCore
import JuicePlatform
import JuiceLog

/// Which slots a connection holds as it goes (`Admission`): signing in, being named by a proxy,
/// probation running out, and the idle timeout.
extension Running {
    /// The address a new connection counts against: its peer's host; nil for a trusted proxy's
    /// connection to a protocol whose requests name their client (HTTP): it carries many
    /// clients, and is counted per request once a request names its client (`countRequest`).
    package func countedAddress(_ peer: String, _ served: any ServedProtocol) -> String? {
        served.namesClients && proxies.trusts(peer: peer) ? nil : PeerAddress.host(of: peer)
    }

    package func markKnown(_ conn: Connection) {
        guard !conn.isKnown, !conn.isClosed else { return }
        move(conn, to: .known, address: nil)
        Log.info("\(conn.peer) signed in: a known client (known: \(admission.known))", category: .connections)
    }

    package func countRequest(_ conn: Connection, from client: String) -> Bool {
        // A trusted proxy's connection is known only for the request that signed in: the proxy
        // reuses its connections for other clients, so each request is counted anew.
        if conn.isKnown && !proxies.trusts(peer: conn.peer) { return true }
        let address = PeerAddress.host(of: client)
        if conn.pool == .anonymous && conn.countedAddress == address { return true }
        guard admission.anonymousRoom(for: address, leaving: conn.pool) else {
            // No longer the previous client's (a proxy reuses its connections for others).
            if conn.pool == .anonymous && conn.countedAddress != nil { move(conn, to: .anonymous, address: nil) }
            return false
        }
        move(conn, to: .anonymous, address: address)
        return true
    }

    private func move(_ conn: Connection, to pool: Admission.Pool, address: String?) {
        admission.remove(conn.pool, address: conn.countedAddress)
        if conn.pool == .probation { probationDeadlines.removeValue(forKey: conn.id) }
        conn.pool = pool
        conn.countedAddress = address
        admission.add(pool, address: address)
    }

    /// Probation that ran out: a connection that did not sign in takes an anonymous place if
    /// one freed meanwhile, else it is refused as busy (what it would have got at accept).
    package func endProbations(now: UInt64) {
        for (id, deadline) in probationDeadlines where deadline <= now {
            guard let conn = table[id], conn.pool == .probation else {
                probationDeadlines.removeValue(forKey: id)
                continue
            }
            // A proxy's connection (no address) waits to be named by its next request.
            let address = conn.countedAddress
            if admission.anonymousRoom(for: address ?? "", leaving: .probation) {
                move(conn, to: .anonymous, address: address)
                continue
            }
            Log.warning("refused \(conn.peer): did not sign in within \(config.probationSeconds) s while the server is full", category: .busy)
            // An answer on its way (an HTTP request answered once) had the whole probation.
            if conn.isFinishing {
                close(conn, reason: "probation over")
                continue
            }
            probationDeadlines.removeValue(forKey: id)
            let perAddress = address.map { admission.isFull($0) } ?? false
            output.send(conn, listeners[Int(conn.listener)].served.busyRefusal(perAddress: perAddress))
            if !conn.isClosed { finish(conn) }
        }
    }

    /// Anonymous connections that showed no life for the idle timeout: nothing read from them,
    /// and none of their output taken; or nothing read from them while their peer left output
    /// unacknowledged at every check for that long. An event stream whose client reads takes
    /// its `: ping`s and events and acknowledges them; one that stopped reading leaves them
    /// unacknowledged once its receive buffer is full (the kernel's send buffer, megabytes on a
    /// fast link, would take much longer to fill). Known clients are never closed as idle: a
    /// till may be quiet for hours, and TCP keepalive finds one that is gone. Whole seconds:
    /// one active within the last second of the limit is kept (never early).
    package func closeIdle(olderThan: UInt64, seconds: Int) {
        let limit = Connection.second(olderThan)
        let now = Connection.second(DispatchTime.now().uptimeNanoseconds)
        for conn in table.values where !conn.isKnown {
            if conn.lastActiveSecond >= limit {
                // Taking output: see whether its peer acknowledges it. A check that finds
                // nothing waiting clears the mark (a reader's next ping is acknowledged at once).
                let waiting = Platform.unacknowledgedBytes(conn.fd) ?? 0
                if waiting == 0 { conn.stalledSince = 0 } else if conn.stalledSince == 0 { conn.stalledSince = max(1, now) }
                guard conn.stalledSince != 0 && conn.stalledSince < limit else { continue }
            }
            close(conn, reason: "idle for more than \(seconds) s")
        }
    }
}

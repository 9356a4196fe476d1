import JuiceCore
import JuiceDomain
import JuicePlatform
import JuiceLog
import JuiceLoop

/// Which connections speak for which paired till, and when each till was last seen: for the
/// manager's list (connected now, last seen) and for revoking (its connections are closed).
/// Loop-confined, like the connections it holds; a session adds itself when it signs in as a
/// till and is removed when it closes.
package final class TillPresence {
    /// Connections one till may hold at once. A till needs one or two (a tablet's page and its
    /// event stream; a terminal); a known connection may take the reserve and is never reaped
    /// as idle, so without a bound one till's credential could hold every slot.
    package static let maxConnectionsPerTill = 8

    private var connections: [TillID: [Connection]] = [:]
    private var lastSeen: [TillID: Int64] = [:]
    private var seenThroughProxy: [TillID: Int64] = [:]
    private let clock: () -> Int64

    package init(clock: @escaping () -> Int64 = WallClock.unixSeconds) {
        self.clock = clock
    }

    /// `conn` signed in as `till` (once per connection and till).
    package func signedIn(_ conn: Connection, as till: TillID) {
        seen(till)
        guard !(connections[till]?.contains { $0 === conn } ?? false) else { return }
        connections[till, default: []].append(conn)
    }

    /// The till sent something (a sale, a request): its last-seen time.
    package func seen(_ till: TillID) {
        lastSeen[till] = clock()
    }

    package func closed(_ conn: Connection, till: TillID) {
        connections[till]?.removeAll { $0 === conn }
        if connections[till]?.isEmpty == true { connections.removeValue(forKey: till) }
    }

    /// A connection of its own is open, or it was seen within the last minute (a till behind
    /// the shop's proxy has no connection of its own: see `HTTPSession.signedIn`).
    package func isConnected(_ till: TillID) -> Bool {
        if connections[till] != nil { return true }
        guard let seen = seenThroughProxy[till] else { return false }
        return clock() - seen < Self.recentSeconds
    }

    /// The till sent a request through the shop's proxy.
    package func seenThroughProxy(_ till: TillID) {
        seen(till)
        seenThroughProxy[till] = lastSeen[till]
    }

    /// How recently a till behind a proxy must have been seen to count as connected.
    package static let recentSeconds: Int64 = 60

    /// Whether `conn` may speak for `till`: it does already, or the till has room for one more.
    package func hasRoom(for conn: Connection, as till: TillID) -> Bool {
        guard let held = connections[till] else { return true }
        return held.contains { $0 === conn } || held.count < Self.maxConnectionsPerTill
    }

    package func lastSeen(_ till: TillID) -> Int64? { lastSeen[till] }

    /// Its connections, taken out (the caller closes them).
    package func takeConnections(of till: TillID) -> [Connection] {
        connections.removeValue(forKey: till) ?? []
    }
}

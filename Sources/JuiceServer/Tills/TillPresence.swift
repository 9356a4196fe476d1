import JuiceCore

/// Which connections speak for which paired till, and when each till was last seen: for the
/// manager's list (connected now, last seen) and for revoking (its connections are closed).
/// Loop-confined, like the connections it holds; a session adds itself when it signs in as a
/// till and is removed when it closes.
final class TillPresence {
    private var connections: [TillID: [Connection]] = [:]
    private var lastSeen: [TillID: Int64] = [:]
    private let clock: () -> Int64

    init(clock: @escaping () -> Int64 = WallClock.unixSeconds) {
        self.clock = clock
    }

    /// `conn` signed in as `till` (once per connection and till).
    func signedIn(_ conn: Connection, as till: TillID) {
        seen(till)
        guard !(connections[till]?.contains { $0 === conn } ?? false) else { return }
        connections[till, default: []].append(conn)
    }

    /// The till sent something (a sale, a request): its last-seen time.
    func seen(_ till: TillID) {
        lastSeen[till] = clock()
    }

    func closed(_ conn: Connection, till: TillID) {
        connections[till]?.removeAll { $0 === conn }
        if connections[till]?.isEmpty == true { connections.removeValue(forKey: till) }
    }

    func isConnected(_ till: TillID) -> Bool { connections[till] != nil }

    func lastSeen(_ till: TillID) -> Int64? { lastSeen[till] }

    /// Its connections, taken out (the caller closes them).
    func takeConnections(of till: TillID) -> [Connection] {
        connections.removeValue(forKey: till) ?? []
    }
}

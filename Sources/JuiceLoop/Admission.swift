import JuiceCore
import JuicePlatform
import JuiceLog
/// Which of the server's connection slots a connection holds, and whether a new one may have
/// one. Three pools share `--max-clients`:
/// - **anonymous**: displays, event streams, phones, anyone who has not said who they are. At
///   most `--max-clients` less `--reserved-clients`, and at most `--max-clients-per-address`
///   from one address (behind a trusted proxy: one forwarded client, counted per request).
/// - **known**: a connection that signed in (the manager's `AUTH`/`Bearer`, a paired till).
///   It may take any slot, so strangers can never fill the reserve it is kept.
/// - **probation**: a new connection that arrived while its anonymous place was full. It holds
///   a reserved slot only until its deadline: it must sign in by then (then it is known), or a
///   place frees for it (then it is anonymous), or it is refused as busy. At most
///   `probationPerAddress` from one address, so one host cannot hold the reserve.
/// PostgreSQL's `superuser_reserved_connections` is the model. A plain value owned by `Running`
/// on the loop.
package struct Admission {
    package enum Pool: UInt8 {
        case anonymous
        case probation
        case known
    }

    /// What a new connection gets.
    package enum Decision: Equatable {
        case admit(Pool)
        /// Refused: over `--max-clients`, or (`perAddress`) over its address's share.
        case refuse(perAddress: Bool)
    }

    package let maxClients: Int
    /// Slots anonymous connections may hold: `maxClients` less the reserve.
    package let anonymousLimit: Int
    package let perAddress: Int?
    package let probationPerAddress: Int
    package private(set) var anonymous = 0
    package private(set) var probation = 0
    package private(set) var known = 0
    /// Anonymous connections per address (only those counted against one).
    private var byAddress: [String: Int] = [:]
    private var probationByAddress: [String: Int] = [:]

    /// A new connection from one address on probation at most this many at once: a till or a
    /// manager's browser needs a few (the page, its writes), a flood from one host gets no more.
    package static let defaultProbationPerAddress = 4

    package init(maxClients: Int, reserved: Int, perAddress: Int?, probationPerAddress: Int = Admission.defaultProbationPerAddress) {
        self.maxClients = maxClients
        // A reserve of at most half: `MaxClients.fit` may have lowered max-clients under it.
        anonymousLimit = max(1, maxClients - min(reserved, maxClients / 2))
        self.perAddress = perAddress
        self.probationPerAddress = probationPerAddress
    }

    package var total: Int { anonymous + probation + known }

    /// Where a new connection from `address` goes (nil: a trusted proxy's, counted per
    /// request once its client is named, and not per address on probation either: the proxy
    /// carries every client, tills included).
    package func decide(address: String?) -> Decision {
        guard total < maxClients else { return .refuse(perAddress: false) }
        let addressFull = address.map { a in perAddress.map { byAddress[a, default: 0] >= $0 } ?? false } ?? false
        if anonymous < anonymousLimit && !addressFull { return .admit(.anonymous) }
        if let address, probationByAddress[address, default: 0] >= probationPerAddress { return .refuse(perAddress: addressFull) }
        return .admit(.probation)
    }

    /// Counts a connection `decide` admitted into `pool`, from `address`.
    package mutating func add(_ pool: Pool, address: String?) {
        switch pool {
        case .anonymous:
            anonymous += 1
            if let address, perAddress != nil { byAddress[address, default: 0] += 1 }
        case .probation:
            probation += 1
            if let address { probationByAddress[address, default: 0] += 1 }
        case .known:
            known += 1
        }
    }

    /// A connection counted in `pool` (from `address`) leaves it.
    package mutating func remove(_ pool: Pool, address: String?) {
        switch pool {
        case .anonymous:
            anonymous -= 1
            if let address, perAddress != nil { Self.decrement(&byAddress, address) }
        case .probation:
            probation -= 1
            if let address { Self.decrement(&probationByAddress, address) }
        case .known:
            known -= 1
        }
    }

    /// Whether an anonymous place is free for `address` now (a probation connection moving
    /// over, a proxy's connection named for its client).
    package func anonymousRoom(for address: String, leaving pool: Pool) -> Bool {
        let count = anonymous - (pool == .anonymous ? 1 : 0)
        return count < anonymousLimit && perAddress.map { byAddress[address, default: 0] < $0 } ?? true
    }

    /// Whether `address` holds its whole anonymous share.
    package func isFull(_ address: String) -> Bool {
        perAddress.map { byAddress[address, default: 0] >= $0 } ?? false
    }

    private static func decrement(_ counts: inout [String: Int], _ key: String) {
        guard let n = counts[key] else { return }
        if n <= 1 { counts.removeValue(forKey: key) } else { counts[key] = n - 1 }
    }
}

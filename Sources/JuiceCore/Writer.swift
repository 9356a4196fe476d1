/// A paired till's number: 1, 2, 3 ... in the order tills were paired, never reused (a revoked
/// till keeps its number, so its keys and its sales stay its own).
package typealias TillID = UInt32

/// Who a connection speaks for, as far as writes go: the session learns it (`TILL`, `AUTH`, an
/// HTTP header) and the store decides with it.
package enum ClientRole: Sendable, Equatable {
    /// Not signed in: reads only where the server has a manager token; a writer in the shared
    /// key namespace where it has none.
    case anonymous
    /// The manager (`AUTH <token>`, `Authorization: Bearer`).
    case manager
    /// A paired till (`TILL <credential>`, the `Juice-Till` header).
    case till(TillID)
}

/// Who made a write, as the journal records it (version 3, PROTOCOL.md "Storage"): the write's
/// key namespace, the till a sale counts for, the address a shared key is counted against.
package enum Writer: Sendable, Hashable {
    /// A paired till: its own key namespace, bounded by itself.
    case till(TillID)
    /// The manager: a namespace of its own, as a till's.
    case manager
    /// An anonymous writer (a server without a token), by its address group
    /// (`PeerAddress.group`): the shared namespace, within the address's share.
    case anonymous(group: String)
    /// A record written before version 3: the shared namespace, counted against no address.
    case unknown

    /// The scope its keys live in.
    package var keyScope: KeyScope {
        switch self {
        case .till(let id): return .own("till:\(id)")
        case .manager: return .own("manager")
        case .anonymous(let group): return .shared(address: group)
        case .unknown: return .shared(address: nil)
        }
    }

    /// Whose keys a scope holds (a snapshot writes it with each key).
    package init(scope: KeyScope) {
        switch scope {
        case .shared(let address?): self = .anonymous(group: address)
        case .shared(nil): self = .unknown
        case .own("manager"): self = .manager
        case .own(let name):
            if name.hasPrefix("till:"), let id = TillID(name.dropFirst(5)) { self = .till(id) } else { self = .unknown }
        }
    }

    /// The field a version-3 record writes: `till:3`, `manager`, `addr:<group>`, `-`.
    package var field: String {
        switch self {
        case .till(let id): return "till:\(id)"
        case .manager: return "manager"
        case .anonymous(let group): return "addr:" + group
        case .unknown: return "-"
        }
    }

    /// Reads `field` back; nil for anything else. An address group is 1 to 64 bytes of
    /// printable ASCII without spaces (an IPv4 address, an IPv6 /64, or a host as accepted).
    package init?(field: some StringProtocol) {
        if field == "-" { self = .unknown; return }
        if field == "manager" { self = .manager; return }
        if field.hasPrefix("till:") {
            let digits = field.dropFirst(5)
            guard !digits.isEmpty, digits.count <= 10, digits.first != "0", digits.allSatisfy({ $0.isASCII && $0.isNumber }),
                  let id = TillID(digits) else { return nil }
            self = .till(id)
            return
        }
        if field.hasPrefix("addr:") {
            let group = field.dropFirst(5)
            guard (1...64).contains(group.utf8.count), group.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else { return nil }
            self = .anonymous(group: String(group))
            return
        }
        return nil
    }
}

import JuiceCore
import JuicePlatform
import JuiceLog

/// The paired tills, as the store keeps them: each till's number, name, credential hash and
/// when it was paired or revoked (journaled: `P`, `N`, `X` records), its sales per business
/// day (journaled with each sale; the snapshot's `Q` records), and the pairing codes the
/// manager made (in memory only: a restart forgets them, and the manager makes another).
///
/// A credential is `<till>-<32 letters and digits>` (160 random bits); only its SHA-256 is
/// kept, so a copied data directory holds no credential that works.
package struct TillRegistry: Sendable {
    package struct Till: Sendable, Equatable {
        package let id: TillID
        package var name: String
        package let hash: String
        package let pairedAt: Int64
        package var revokedAt: Int64?
        package var isActive: Bool { revokedAt == nil }
    }

    /// A till's sales on one business day.
    package struct Sales: Sendable, Equatable {
        package var orders: UInt64 = 0
        package var juices: UInt64 = 0
    }

    /// What a presented credential is.
    package enum Verdict: Sendable, Equatable {
        case till(TillID)
        case revoked(TillID)
        case unknown
    }

    /// Tills that may be active at once: each holds up to `Limits.keysPerTill` keys, so this
    /// bounds the memory of every till's keys together.
    package static let maxActive = 64
    /// Pairing codes outstanding at once, and how long one lives.
    package static let maxCodes = 8
    package static let codeSeconds: Int64 = 600
    /// Days of per-till sales kept (as the shop's history keeps days).
    package static let keptDays = 400

    package private(set) var tills: [Till] = []
    package private(set) var days: [Int32: [TillID: Sales]] = [:]
    private var codes: [String: (name: String?, expires: Int64)] = [:]

    package init() {}

    package var activeCount: Int { tills.lazy.filter(\.isActive).count }
    package var nextID: TillID { (tills.last?.id ?? 0) + 1 }

    package func till(_ id: TillID) -> Till? {
        tills.first { $0.id == id }
    }

    package func isActive(_ id: TillID) -> Bool { till(id)?.isActive ?? false }

    /// Checks a credential in time that does not depend on where it differs from the hash.
    package func verify(_ credential: String) -> Verdict {
        guard let dash = credential.firstIndex(of: "-"), let id = TillID(credential[..<dash]), let till = till(id),
              credential.utf8.count <= 64 else { return .unknown }
        guard constantTimeEqual(Array(SHA256.hex(Array(credential.utf8)).utf8), Array(till.hash.utf8)) else { return .unknown }
        return till.isActive ? .till(id) : .revoked(id)
    }

    // MARK: pairing codes

    /// A new code for the manager to give a till, with the name the till will have.
    package mutating func newCode(name: String?, now: Int64) -> Result<String, ProtocolError> {
        forgetExpiredCodes(now: now)
        guard activeCount < Self.maxActive else {
            return .failure(ProtocolError(.busy, "\(Self.maxActive) tills are paired: revoke one first"))
        }
        guard codes.count < Self.maxCodes else {
            return .failure(ProtocolError(.busy, "\(Self.maxCodes) pairing codes are waiting: use one, or wait \(Self.codeSeconds / 60) minutes"))
        }
        var code: String
        repeat { code = PairingCode.make() } while codes[code] != nil
        codes[code] = (name, now + Self.codeSeconds)
        return .success(code)
    }

    /// Uses a code up: the name it was made with (nil: none given), or why not (a code is
    /// kept when the store cannot take another till).
    ///
    /// Guessing is slowed where the guesses come from: the caller counts a wrong code against
    /// the guesser's address as a wrong token (`ManagerAuth`: 10 a minute an address, 100 in
    /// all), which refuses further tries unchecked; a wrong code never voids the real ones, so
    /// a stranger cannot stop the shop pairing.
    package mutating func takeCode(_ typed: String, now: Int64) -> Result<String?, ProtocolError> {
        forgetExpiredCodes(now: now)
        guard let code = PairingCode.normalized(typed), codes[code] != nil else {
            return .failure(ProtocolError(.authFailed, "no such pairing code (codes are single-use and last \(Self.codeSeconds / 60) minutes)"))
        }
        guard activeCount < Self.maxActive, nextID <= Self.maxTillID else {
            return .failure(ProtocolError(.busy, "\(Self.maxActive) tills are paired: the manager must revoke one first"))
        }
        return .success(codes.removeValue(forKey: code)!.name)
    }

    package var waitingCodes: Int { codes.count }

    private mutating func forgetExpiredCodes(now: Int64) {
        codes = codes.filter { $0.value.expires > now }
    }

    // MARK: records

    /// A journal or snapshot record about tills, held to what the store writes: tills are
    /// paired in turn (1, 2, 3 ..., never one twice), only an active till is renamed or revoked.
    /// False for anything else (recovery calls it corruption), and for any other record.
    package mutating func apply(_ record: JournalRecord) -> Bool {
        switch record {
        case let .tillPaired(_, id, hash, name, time):
            guard id == nextID, id <= Self.maxTillID else { return false }
            tills.append(Till(id: id, name: name, hash: hash, pairedAt: time))
        case let .tillRenamed(_, id, name, _):
            guard let i = tills.firstIndex(where: { $0.id == id }), tills[i].isActive else { return false }
            tills[i].name = name
        case let .tillRevoked(_, id, time):
            guard let i = tills.firstIndex(where: { $0.id == id }), tills[i].isActive else { return false }
            tills[i].revokedAt = time
        case let .tillDay(day, id, orders, juices):
            guard till(id) != nil, days[day]?[id] == nil else { return false }
            days[day, default: [:]][id] = Sales(orders: orders, juices: juices)
        default:
            return false
        }
        return true
    }

    /// The most tills a store ever pairs (revoked ones count: numbers are never reused). Far
    /// past any shop, and far below `TillID.max`, so the next number never overflows.
    package static let maxTillID: TillID = 1_000_000

    /// A sale by till `id` on business `day`.
    package mutating func countSale(till id: TillID, juices: Int, day: Int32) {
        var sales = days[day, default: [:]][id, default: Sales()]
        sales.orders += 1
        sales.juices += UInt64(juices)
        days[day, default: [:]][id] = sales
        if days.count > Self.keptDays, let oldest = days.keys.min() { days.removeValue(forKey: oldest) }
    }

    package func sales(on day: Int32) -> [TillID: Sales] { days[day] ?? [:] }

    /// The records a snapshot keeps: each till as paired (with its name now), revoked ones
    /// revoked, and the sales per day.
    package var snapshotRecords: [JournalRecord] {
        var records: [JournalRecord] = []
        for till in tills {
            records.append(.tillPaired(lsn: 1, till: till.id, hash: till.hash, name: till.name, time: till.pairedAt))
            if let revoked = till.revokedAt { records.append(.tillRevoked(lsn: 1, till: till.id, time: revoked)) }
        }
        for day in days.keys.sorted() {
            for (id, sales) in days[day]!.sorted(by: { $0.key < $1.key }) {
                records.append(.tillDay(day: day, till: id, orders: sales.orders, juices: sales.juices))
            }
        }
        return records
    }
}

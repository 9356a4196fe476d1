import JuiceCore
import JuicePlatform
import JuiceLog

/// What PAIR and TILLS come to, as values: each protocol words them (`LineCodec`, the HTTP
/// till routes). `connected` and `lastSeen` are the loop's to add (`TillPresence`).
package enum TillsOutcome {
    /// A till was paired: its credential, shown this once and never again.
    case paired(TillInfo, credential: String)
    /// A pairing code, good once for `expiresIn` seconds.
    case code(String, name: String?, expiresIn: Int64)
    case list([TillInfo])
    case renamed(TillInfo)
    /// Revoked: the loop closes its connections.
    case revoked(TillInfo)
    case refused(ProtocolError)
    /// No paired till by that number (or it was revoked): HTTP says 404.
    case noSuchTill(ProtocolError)
}

/// A till as the manager sees it.
package struct TillInfo: Equatable {
    package let till: TillRegistry.Till
    /// Its sales today (business day).
    package let ordersToday: UInt64
    package let juicesToday: UInt64
}

extension FruitStore {
    /// `PAIR <code>`: a new till, journaled before the credential is answered (so a till that
    /// got one can always use it).
    package func pair(code: String) -> TillsOutcome {
        let now = wallClock()
        if let why = journal?.refusal() { return .refused(Wire.refusal(.unavailable(why), menu: menu)!) }
        let name: String?
        switch ledger.tills.takeCode(code, now: now) {
        case .success(let named): name = named
        case .failure(let error):
            return .refused(error)
        }
        let id = ledger.tills.nextID
        let credential = TillCredential.make(for: id)
        let hash = SHA256.hex(Array(credential.utf8))
        keep { JournalRecord.tillPaired(lsn: $0, till: id, hash: hash, name: name ?? "Till \(id)", time: now) }
        Log.info("till \(id) paired (\(name ?? "Till \(id)"))")
        return .paired(info(id, now: now)!, credential: credential)
    }

    /// The manager's `TILLS` requests.
    package func tills(_ request: TillsRequest) -> TillsOutcome {
        let now = wallClock()
        switch request {
        case .list:
            return .list(ledger.tills.tills.compactMap { info($0.id, now: now) })
        case .newCode(let name):
            switch ledger.tills.newCode(name: name, now: now) {
            case .success(let code): return .code(code, name: name, expiresIn: TillRegistry.codeSeconds)
            case .failure(let error): return .refused(error)
            }
        case .rename(let id, let name):
            guard let till = ledger.tills.till(id), till.isActive else { return noSuchTill(id) }
            if let why = journal?.refusal() { return .refused(Wire.refusal(.unavailable(why), menu: menu)!) }
            keep { JournalRecord.tillRenamed(lsn: $0, till: id, name: name, time: now) }
            return .renamed(info(id, now: now)!)
        case .revoke(let id):
            guard let till = ledger.tills.till(id), till.isActive else { return noSuchTill(id) }
            if let why = journal?.refusal() { return .refused(Wire.refusal(.unavailable(why), menu: menu)!) }
            keep { JournalRecord.tillRevoked(lsn: $0, till: id, time: now) }
            // Nothing it sends is applied again: its keys answer nothing, and go.
            ledger.forgetKeys(of: .till(id))
            Log.info("till \(id) revoked (\(till.name))")
            return .revoked(info(id, now: now)!)
        }
    }

    /// A till record: applied to the registry now, journaled with the run (its answer waits
    /// until it is durable), and the kept reports made stale (they name the tills).
    private func keep(_ record: (_ lsn: UInt64) -> JournalRecord) {
        _ = ledger.tills.apply(record(0))
        ledger.history.noteChange()
        journal?.append(record)
    }

    /// What a presented credential is (`TILL`, the `Juice-Till` header).
    package func verifyTill(_ credential: String) -> TillRegistry.Verdict {
        ledger.tills.verify(credential)
    }

    private func noSuchTill(_ id: TillID) -> TillsOutcome {
        .noSuchTill(ProtocolError(.badArgument, "no paired till \(id), see TILLS"))
    }

    private func info(_ id: TillID, now: Int64) -> TillInfo? {
        guard let till = ledger.tills.till(id) else { return nil }
        let sales = ledger.tills.sales(on: ledger.history.calendar.day(at: now))[id] ?? TillRegistry.Sales()
        return TillInfo(till: till, ordersToday: sales.orders, juicesToday: sales.juices)
    }
}

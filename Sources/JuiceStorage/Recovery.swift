import JuiceCore
import JuiceDomain
import JuicePlatform
import JuiceLog

/// Startup recovery as a pure function of the data files' bytes: load the snapshot, replay the
/// journal records after it. It does no I/O, so every judgement about the files is made before
/// `Storage` changes anything on disk, and it can be tested (and fuzzed) in-process.
package struct Recovery {
    /// A data file as read: its path (for messages) and its bytes.
    package struct File {
        package let path: String
        package let bytes: [UInt8]

        package init(path: String, bytes: [UInt8]) {
            self.path = path
            self.bytes = bytes
        }
    }

    package var ledger: StockLedger
    /// The last changes replayed (up to `Limits.historyEvents`, oldest first), for the server's
    /// SINCE history: records in, domain values out; what a display is sent is not storage's.
    package var recentChanges: [Change] { Array(changes.suffix(Limits.historyEvents)) }
    private var changes: [Change] = []
    /// The lsn the snapshot was taken at (0 without one), and of the last record recovered.
    package var snapshotLSN: UInt64 = 0
    package var lsn: UInt64 = 0
    /// The journal bytes that hold good records; anything after them is a torn tail to cut.
    package var journalLength = 0
    /// Where the journal's last good record starts (nil: it holds none), which a compaction
    /// copies into the journal it starts (`JournalFile.rotate`).
    package var lastRecordOffset: Int?
    package var tornTail: (offset: Int, reason: String)?

    /// Rebuilds `ledger` (a new store under the current menu) from the files that exist.
    /// `now` (unix seconds) ages what has no time of its own: a key from a version-1 record is
    /// taken as first used at recovery, so it is kept a whole retention window from then (the
    /// safe side: never forgotten early).
    package static func recover(_ ledger: StockLedger, snapshot: File?, journal: File?,
                        now: Int64 = WallClock.unixSeconds()) throws(StorageError) -> Recovery {
        var recovery = Recovery(ledger: ledger, now: now)
        if let snapshot { try recovery.loadSnapshot(snapshot) }
        recovery.lsn = recovery.snapshotLSN
        if let journal { try recovery.replayJournal(journal) }
        recovery.ledger.forgetExpiredKeys(now: now)
        return recovery
    }

    private let now: Int64

    private init(ledger: StockLedger, now: Int64) {
        self.ledger = ledger
        self.now = now
    }

    /// A refusal to start: the file, the byte offset, and why. Nothing on disk has changed yet.
    package static func corrupt(_ file: StorageError.DataFile, _ path: String, at offset: Int, _ reason: String) -> StorageError {
        .corrupt(file, path: path, offset: offset, reason: reason)
    }

    // MARK: - Snapshot

    /// `H`, then `F`, `D`, `L`, `T` and `K` records, then `E` counting the records before it (a
    /// snapshot from before `L` and `T` existed has none: those counters start at 0). A snapshot is
    /// written whole, fsynced and renamed into place: any damage, even at its end, is real.
    private mutating func loadSnapshot(_ file: File) throws(StorageError) {
        let read = RecordReader.read(file.bytes)
        if let problem = read.problem {
            let (offset, reason) = switch problem {
            case .tornTail(let o, let r), .corrupt(let o, let r): (o, r)
            }
            throw Recovery.corrupt(.snapshot, file.path, at: offset, reason)
        }
        guard case .header(let lsn, let seq, let served, let refused)? = read.records.first?.record else {
            throw Recovery.corrupt(.snapshot, file.path, at: 0, "it does not begin with a header record")
        }
        guard case .end(let count)? = read.records.last?.record else {
            throw Recovery.corrupt(.snapshot, file.path, at: read.validLength, "it has no end record")
        }
        guard count == read.records.count - 1 else {
            throw Recovery.corrupt(.snapshot, file.path, at: read.records[read.records.count - 1].offset,
                                   "the end record counts \(count) records, not \(read.records.count - 1)")
        }
        ledger.restore(seq: seq, ordersServed: served, ordersRefused: refused)
        let menu = ledger.menu
        // The writer puts the kinds in this order and each name (or key) once: anything else
        // was not written by it, and would otherwise be taken silently (the last one winning).
        var kindRank = 0
        var names = Set<String>()
        var lastHour: (Int64, Int32, Int32)?
        for (offset, record) in read.records.dropFirst().dropLast() {
            /// A remembered key's first outcome, read once from the reply text its record keeps.
            func firstOutcome(_ reply: String, _ request: KeyMemory.Request, _ key: String) throws(StorageError) -> WriteOutcome {
                guard let outcome = RecordedReply.outcome(reply, request: request, key: key, menu: menu) else {
                    throw Recovery.corrupt(.snapshot, file.path, at: offset, "the reply kept for key '\(key)' does not read as one")
                }
                return outcome
            }
            let (rank, name): (Int, String) = switch record {
            case .fruit(let name, _): (1, name)
            case .sold(let name, _): (2, name)
            case .lost(let name, _): (3, name)
            case .short(let name, _): (4, name)
            case .key(let key, _, _, _): (5, key)
            case .rememberedKey(let key, _, _, _, _, _): (5, key)
            case .scopedKey(let key, let by, _, _): (5, by.field + " " + key)
            case .tillPaired(_, let till, _, _, _): (7, "P\(till)")
            case .tillRevoked(_, let till, _): (7, "X\(till)")
            case .tillDay(let day, let till, _): (8, "\(day) \(till)")
            case .money: (9, "M")
            case .sale(_, let seq, _, _, _, _, _, _, _): (10, "\(seq)")
            // An hour is its start, day and offset: after a change of --timezone or --day-starts,
            // two calendars' hours may start at one moment, each keeping its own day and offset.
            case .hour(let start, let day, let utcOffset, _, _, _): (6, "\(start) \(BusinessCalendar.dateText(day)) \(utcOffset)")
            default: (0, "")
            }
            if rank > kindRank {
                kindRank = rank
                names.removeAll(keepingCapacity: true)
            } else if rank > 0 && rank < kindRank {
                throw Recovery.corrupt(.snapshot, file.path, at: offset, "a record out of the order F, D, L, T, K, Y, P, Q, M, G")
            }
            if rank > 0 && !names.insert(name).inserted {
                throw Recovery.corrupt(.snapshot, file.path, at: offset, "a second record for '\(name)' of the same kind")
            }
            switch record {
            case .fruit(let name, let stock):
                if let i = menu.fruitIndex(name) { ledger.restore(fruit: i, value: stock) }
            case .sold(let juice, let count):
                if let j = menu.juiceIndex(juice) { ledger.restore(juice: j, sold: count) }
            case .lost(let juice, let count):
                if let j = menu.juiceIndex(juice) { ledger.restore(juice: j, lost: count) }
            case .short(let fruit, let count):
                if let i = menu.fruitIndex(fruit) { ledger.restore(fruit: i, short: count) }
            case .key(let key, let juice, let count, let reply):
                if let j = menu.juiceIndex(juice) {
                    let request = KeyMemory.Request.order(juice: j, count: count)
                    ledger.restoreKey(key, KeyMemory.Entry(first: try firstOutcome(reply, request, key), at: now))
                }
            case .rememberedKey(let key, let write, let name, let number, let reply, let time):
                let request: KeyMemory.Request? = switch write {
                case .order: menu.juiceIndex(name).map { .order(juice: $0, count: number) }
                case .restock: menu.fruitIndex(name).map { .restock(fruit: $0, amount: number) }
                case .set: menu.fruitIndex(name).map { .set(fruit: $0, amount: number) }
                }
                if let request {
                    ledger.restoreKey(key, KeyMemory.Entry(first: try firstOutcome(reply, request, key), at: time))
                }
            case .scopedKey(let key, let by, let outcome, let time):
                if let first = JournalRecord.firstOutcome(outcome, key: key, menu: menu) {
                    ledger.restoreKey(key, KeyMemory.Entry(first: first, at: time), in: by.keyScope)
                }
            case .money(let totals):
                ledger.restore(money: totals)
            case .sale(let day, let seq, let juice, let count, let by, let amount, let key, let voidedBy, let time):
                if let j = menu.juiceIndex(juice) {
                    ledger.restoreSale(DaySales.Sale(seq: seq, juice: j, count: count, amount: amount, by: by, time: time, key: key,
                                                     voidedBy: voidedBy), day: day)
                }
            case .tillPaired, .tillRevoked, .tillDay:
                guard ledger.tills.apply(record) else {
                    throw Recovery.corrupt(.snapshot, file.path, at: offset, "a till record the store could not have written (out of turn, or about a till never paired)")
                }
                if case .tillRevoked(_, let till, _) = record { ledger.forgetKeys(of: .till(till)) }
            case .hour(let start, let day, let utcOffset, let served, let refused, let counts):
                // Written in time order (`SalesHistory.inOrder`).
                if let last = lastHour, !(last < (start, day, utcOffset)) {
                    throw Recovery.corrupt(.snapshot, file.path, at: offset, "an hour out of time order")
                }
                lastHour = (start, day, utcOffset)
                var counters = SalesHistory.Counters(juices: menu.juices.count, fruits: menu.fruits.count)
                counters.served = served
                counters.refused = refused
                for count in counts {
                    // A name the menu no longer has is skipped, as in every other record.
                    guard let i = count.kind.perJuice ? menu.juiceIndex(count.name) : menu.fruitIndex(count.name) else { continue }
                    counters[count.kind, i] = count.value
                }
                ledger.restoreHistory(BusinessCalendar.Slot(start: start, day: day, offset: utcOffset), counters)
            default:
                throw Recovery.corrupt(.snapshot, file.path, at: offset, "a record that does not belong inside a snapshot")
            }
        }
        snapshotLSN = lsn
    }

    // MARK: - Journal

    /// Replays the records after the snapshot, holding them to what the writer guarantees: every
    /// record has an lsn one above the one before it (records the snapshot already holds may be
    /// left over, and a power cut may have lost some of them: those need only increase), and
    /// every applied change has the seq one above the store's (refusals take none).
    private mutating func replayJournal(_ file: File) throws(StorageError) {
        let read = RecordReader.read(file.bytes)
        switch read.problem {
        case .corrupt(let offset, let reason)?:
            throw Recovery.corrupt(.journal, file.path, at: offset, reason)
        case .tornTail(let offset, let reason)?:
            tornTail = (offset, reason)
        case nil:
            break
        }
        let menu = ledger.menu
        var previous: UInt64 = 0
        for (offset, record) in read.records {
            func corrupt(_ reason: String) -> StorageError { Recovery.corrupt(.journal, file.path, at: offset, reason) }
            guard let lsn = record.lsn, record.seq != nil || record.isRefusal || record.isTillRecord else {
                throw corrupt("a snapshot record in the journal")
            }
            guard lsn > previous else { throw corrupt("lsn \(lsn) after lsn \(previous)") }
            previous = lsn
            guard lsn > snapshotLSN else { continue }  // already in the snapshot (compaction was interrupted)
            guard lsn == self.lsn + 1 else { throw corrupt("lsn \(lsn) after lsn \(self.lsn): records are missing") }
            if let seq = record.seq, seq != ledger.seq + 1 {
                throw corrupt("seq \(seq) after seq \(ledger.seq)")
            }
            self.lsn = lsn
            // A version-1 record has no time: its key is aged from now, and it is in no hour.
            let keyTime = record.time ?? now
            let scope = (record.writer ?? .unknown).keyScope
            if record.isTillRecord {
                guard ledger.tills.apply(record) else {
                    throw corrupt("a till record the store could not have written (paired out of turn, or about a till not paired or revoked)")
                }
                if case .tillRevoked(_, let till, _) = record { ledger.forgetKeys(of: .till(till)) }
                continue
            }
            // A till's write needs the till, paired and not revoked (the store refuses the rest).
            if case .till(let till)? = record.writer, !ledger.tills.isActive(till) {
                throw corrupt("a write by till \(till), which is not paired or was revoked")
            }
            switch record.replayStep(under: menu) {
            case .change(let change)?:
                apply(change, at: record.time, keyTime: keyTime, scope: scope)
                if let time = record.time { ledger.noteSale(change, by: record.writer ?? .unknown, at: time) }
            case .refusal(let request, let have, let amount, let counted)?:
                ledger.replayRefusal(request, have: have, amount: amount, counted: counted, at: record.time, keyTime: keyTime, scope: scope)
            case .skippedChange(let seq, let order)?:
                ledger.skip(toSeq: seq, order: order)
            case .skippedRefusal(let counted)?:
                if counted { ledger.restore(seq: ledger.seq, ordersServed: ledger.ordersServed, ordersRefused: ledger.ordersRefused + 1) }
            case nil:
                break
            }
        }
        journalLength = read.validLength
        lastRecordOffset = read.records.last?.offset
    }

    private mutating func apply(_ change: Change, at time: Int64?, keyTime: Int64, scope: KeyMemory.Scope) {
        ledger.replay(change, at: time, keyTime: keyTime, scope: scope)
        // Kept bounded while a long journal replays: trimmed to the last `historyEvents` in
        // one go each time it holds twice that many.
        if changes.count == 2 * Limits.historyEvents { changes.removeFirst(Limits.historyEvents) }
        changes.append(change)
    }
}

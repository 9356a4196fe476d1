import JuiceCore

/// Startup recovery as a pure function of the data files' bytes: load the snapshot, replay the
/// journal records after it. It does no I/O, so every judgement about the files is made before
/// `Storage` changes anything on disk, and it can be tested (and fuzzed) in-process.
struct Recovery {
    /// A data file as read: its path (for messages) and its bytes.
    struct File {
        let path: String
        let bytes: [UInt8]
    }

    var ledger: StockLedger
    var history = EventHistory()
    /// The lsn the snapshot was taken at (0 without one), and of the last record recovered.
    var snapshotLSN: UInt64 = 0
    var lsn: UInt64 = 0
    /// The journal bytes that hold good records; anything after them is a torn tail to cut.
    var journalLength = 0
    var tornTail: (offset: Int, reason: String)?

    /// Rebuilds `ledger` (a new store under the current menu) from the files that exist.
    static func recover(_ ledger: StockLedger, snapshot: File?, journal: File?) throws(StorageError) -> Recovery {
        var recovery = Recovery(ledger: ledger)
        if let snapshot { try recovery.loadSnapshot(snapshot) }
        recovery.lsn = recovery.snapshotLSN
        if let journal { try recovery.replayJournal(journal) }
        return recovery
    }

    // MARK: - Snapshot

    private mutating func loadSnapshot(_ file: File) throws(StorageError) {
        let read = RecordReader.read(file.bytes)
        if let problem = read.problem {
            // A snapshot is written whole, fsynced and renamed into place: any damage is real.
            let (offset, reason) = switch problem {
            case .tornTail(let o, let r), .corrupt(let o, let r): (o, r)
            }
            throw StorageError("snapshot \(file.path) is damaged at offset \(offset) (\(reason)); refusing to start")
        }
        guard case .header(let lsn, let seq, let served, let refused)? = read.records.first?.record,
              case .end(let count)? = read.records.last?.record, count == read.records.count - 1 else {
            throw StorageError("snapshot \(file.path) is incomplete; refusing to start")
        }
        ledger.restore(seq: seq, ordersServed: served, ordersRefused: refused)
        let menu = ledger.menu
        for (_, record) in read.records {
            switch record {
            case .fruit(let name, let stock):
                if let i = menu.fruitIndex(name) { ledger.restore(fruit: i, value: stock) }
            case .sold(let juice, let count):
                if let j = menu.juiceIndex(juice) { ledger.restore(juice: j, sold: count) }
            case .key(let key, let juice, let count, let reply):
                if let j = menu.juiceIndex(juice) {
                    ledger.restoreKey(key, KeyMemory.Entry(juice: j, count: count, reply: Array(reply.utf8)))
                }
            default:
                break
            }
        }
        snapshotLSN = lsn
    }

    // MARK: - Journal

    private mutating func replayJournal(_ file: File) throws(StorageError) {
        let read = RecordReader.read(file.bytes)
        switch read.problem {
        case .corrupt(let offset, let reason)?:
            throw StorageError("journal \(file.path) is corrupt at offset \(offset) (\(reason)), with good records after it; refusing to start rather than drop acknowledged changes. Inspect it, or restore a backup")
        case .tornTail(let offset, let reason)?:
            tornTail = (offset, reason)
        case nil:
            break
        }
        let menu = ledger.menu
        var lastLSN = snapshotLSN
        for (offset, record) in read.records {
            guard let lsn = record.lsn else {
                throw StorageError("journal \(file.path) holds a snapshot record at offset \(offset); refusing to start")
            }
            guard lsn > snapshotLSN else { continue }  // already in the snapshot (compaction was interrupted)
            guard lsn == lastLSN + 1 else {
                throw StorageError("journal \(file.path) skips from lsn \(lastLSN) to \(lsn) at offset \(offset); refusing to start")
            }
            lastLSN = lsn
            switch record {
            case let .order(_, seq, juice, count, key, left):
                guard let j = menu.juiceIndex(juice) else {
                    ledger.skip(toSeq: seq, order: true)  // a juice the menu no longer has
                    continue
                }
                let touched = left.compactMap { v in menu.fruitIndex(v.name).map { FruitValue(fruit: $0, value: v.value) } }
                apply(Change(seq: seq, kind: .order(OrderRequest(juice: j, count: count, key: key)), touched: touched))
            case let .refusal(_, juice, count, key, had):
                guard let j = menu.juiceIndex(juice) else {
                    ledger.restore(seq: ledger.seq, ordersServed: ledger.ordersServed, ordersRefused: ledger.ordersRefused + 1)
                    continue
                }
                ledger.replayRefusal(OrderRequest(juice: j, count: count, key: key), have: had.map(\.value))
            case let .restock(_, seq, fruit, amount, total):
                guard let f = menu.fruitIndex(fruit) else {
                    ledger.skip(toSeq: seq, order: false)
                    continue
                }
                apply(Change(seq: seq, kind: .restock(fruit: f, amount: amount), touched: [FruitValue(fruit: f, value: total)]))
            case let .set(_, seq, fruit, value):
                guard let f = menu.fruitIndex(fruit) else {
                    ledger.skip(toSeq: seq, order: false)
                    continue
                }
                apply(Change(seq: seq, kind: .set(fruit: f, amount: value), touched: [FruitValue(fruit: f, value: value)]))
            default:
                break
            }
        }
        lsn = max(snapshotLSN, lastLSN)
        journalLength = read.validLength
    }

    private mutating func apply(_ change: Change) {
        ledger.replay(change)
        var line: [UInt8] = []
        Wire.appendEvent(seq: change.seq, change.touched, menu: ledger.menu, to: &line)
        history.append(seq: change.seq, line: line)
    }
}

import Foundation
import JuicePlatform
import JuiceCore

/// The data directory:
///
///     <dir>/LOCK       held (flock) while a server uses the directory
///     <dir>/menu.json  the menu the data was written with
///     <dir>/snapshot   the whole state at one journal position (written by compaction)
///     <dir>/journal    the changes after that snapshot, one framed record each
///
/// Opening it recovers the state: load the snapshot, replay the journal records after it, cut
/// off a torn tail (a crash mid-write), and refuse to start on corruption anywhere else.
struct Storage {
    static let journalName = "journal"
    static let snapshotName = "snapshot"
    static let menuName = "menu.json"

    let directory: String
    var journalPath: String { directory + "/" + Storage.journalName }
    var snapshotPath: String { directory + "/" + Storage.snapshotName }

    struct Opened {
        var ledger: StockLedger
        var recovered: RecoveredState
        var journal: Journal
        var journalBytes: Int
        var lockFD: Int32
    }

    static func open(_ config: ServerConfig, initialStock: Int) throws(StorageError) -> Opened {
        guard let directory = config.dataDirectory else { throw StorageError("no data directory") }
        let storage = Storage(directory: directory)
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        } catch {
            throw StorageError("cannot create data directory \(directory): \(error.localizedDescription)")
        }
        let lockFD = try storage.lock()
        try storage.checkMenu(config.menu, accept: config.acceptMenuChange)
        var ledger = StockLedger(menu: config.menu, initialStock: initialStock, overridingMenu: config.initialStockOverridesMenu)
        var history = EventHistory()
        var lsn: UInt64 = 0
        if FileManager.default.fileExists(atPath: storage.snapshotPath) {
            lsn = try storage.loadSnapshot(into: &ledger)
        } else if !FileManager.default.fileExists(atPath: storage.journalPath) {
            // A brand-new store: record its initial stock at once. The journal only records the
            // fruits each change touches, so without this a restart with another
            // --initial-stock (or menu) would rebuild untouched fruits wrongly.
            try writeAtomically(snapshotBytes(ledger, lsn: 0), to: storage.snapshotPath, directory: directory)
        }
        let (lastLSN, journalBytes) = try storage.replayJournal(after: lsn, into: &ledger, history: &history)
        let menuPath = directory + "/" + Storage.menuName
        if let saved = FileManager.default.contents(atPath: menuPath), saved != Data(MenuFile.json(config.menu).utf8) {
            // The menu changed: new fruits got their initial stock just now. Record the state
            // under the new menu, so that stock is what every later start sees.
            try writeAtomically(snapshotBytes(ledger, lsn: max(lsn, lastLSN)), to: storage.snapshotPath, directory: directory)
        }
        let journal = try Journal(path: storage.journalPath, directory: directory, validLength: journalBytes)
        try storage.saveMenu(config.menu)
        return Opened(ledger: ledger, recovered: RecoveredState(history: history, lsn: max(lsn, lastLSN)),
                      journal: journal, journalBytes: journalBytes, lockFD: lockFD)
    }

    /// One server per directory: two writers would interleave their journals.
    private func lock() throws(StorageError) -> Int32 {
        let fd = Platform.open(directory + "/LOCK", O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw StorageError("cannot open \(directory)/LOCK: \(String(cString: strerror(errno)))") }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            close(fd)
            throw StorageError("data directory \(directory) is in use by another juice-server")
        }
        return fd
    }

    // MARK: - Menu

    /// A data directory remembers its menu. A new menu may add fruits and juices freely; dropping a
    /// fruit that still has stock needs `--accept-menu-change` (that stock would be lost).
    private func checkMenu(_ menu: Menu, accept: Bool) throws(StorageError) {
        let path = directory + "/" + Storage.menuName
        guard let data = FileManager.default.contents(atPath: path) else { return }
        guard case .success(let old) = MenuFile.parse(data) else {
            throw StorageError("\(path) is not a valid menu; move it away to start over")
        }
        let dropped = old.fruits.map(\.name).filter { menu.fruitIndex($0) == nil }
        guard !dropped.isEmpty, !accept else { return }
        var ledger = StockLedger(menu: old, initialStock: 0)
        var history = EventHistory()
        var lsn: UInt64 = 0
        if FileManager.default.fileExists(atPath: snapshotPath) { lsn = try loadSnapshot(into: &ledger) }
        _ = try replayJournal(after: lsn, into: &ledger, history: &history, repair: false)
        let stocked = dropped.filter { ledger.stock[old.fruitIndex($0)!] > 0 }
        guard stocked.isEmpty else {
            let list = stocked.map { "\($0)=\(ledger.stock[old.fruitIndex($0)!])" }.joined(separator: " ")
            throw StorageError("the new menu drops fruit that is still in stock in \(directory) (\(list)); sell or SET it to 0 first, or start with --accept-menu-change to discard it")
        }
    }

    private func saveMenu(_ menu: Menu) throws(StorageError) {
        try Storage.writeAtomically(Array(MenuFile.json(menu).utf8), to: directory + "/" + Storage.menuName, directory: directory)
    }

    // MARK: - Snapshot

    private func loadSnapshot(into ledger: inout StockLedger) throws(StorageError) -> UInt64 {
        guard let data = FileManager.default.contents(atPath: snapshotPath) else {
            throw StorageError("cannot read snapshot \(snapshotPath)")
        }
        let read = RecordReader.read([UInt8](data))
        if let problem = read.problem {
            // A snapshot is written whole, fsynced and renamed into place: any damage is real.
            let (offset, reason) = switch problem {
            case .tornTail(let o, let r), .corrupt(let o, let r): (o, r)
            }
            throw StorageError("snapshot \(snapshotPath) is damaged at offset \(offset) (\(reason)); refusing to start")
        }
        guard case .header(let lsn, let seq, let served, let refused)? = read.records.first?.record,
              case .end(let count)? = read.records.last?.record, count == read.records.count - 1 else {
            throw StorageError("snapshot \(snapshotPath) is incomplete; refusing to start")
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
        return lsn
    }

    /// The whole state as snapshot records.
    static func snapshotBytes(_ ledger: StockLedger, lsn: UInt64) -> [UInt8] {
        let menu = ledger.menu
        var records: [JournalRecord] = [.header(lsn: lsn, seq: ledger.seq, served: ledger.ordersServed, refused: ledger.ordersRefused)]
        for (i, fruit) in menu.fruits.enumerated() { records.append(.fruit(name: fruit.name, stock: ledger.stock[i])) }
        for (j, juice) in menu.juices.enumerated() { records.append(.sold(juice: juice.name, count: ledger.sold[j])) }
        for (key, entry) in ledger.keys.inOrder {
            records.append(.key(key: key, juice: menu.juices[entry.juice].name, count: entry.count,
                                reply: String(decoding: entry.reply, as: UTF8.self)))
        }
        records.append(.end(records: records.count))
        var out: [UInt8] = []
        for record in records { out.append(contentsOf: record.framed()) }
        return out
    }

    // MARK: - Journal

    /// Replays the journal records after `snapshotLSN`. Returns the last lsn and the size kept.
    private func replayJournal(after snapshotLSN: UInt64, into ledger: inout StockLedger, history: inout EventHistory,
                               repair: Bool = true) throws(StorageError) -> (UInt64, Int) {
        guard let data = FileManager.default.contents(atPath: journalPath) else { return (snapshotLSN, 0) }
        let read = RecordReader.read([UInt8](data))
        switch read.problem {
        case .corrupt(let offset, let reason)?:
            throw StorageError("journal \(journalPath) is corrupt at offset \(offset) (\(reason)), with good records after it; refusing to start rather than drop acknowledged changes. Inspect it, or restore a backup")
        case .tornTail(let offset, let reason)?:
            if repair {
                Log.warning("journal \(journalPath): torn record at offset \(offset) (\(reason)), \(data.count - offset) bytes; cutting it off (a write that a crash interrupted was never acknowledged)")
                guard truncate(journalPath, off_t(offset)) == 0 else {
                    throw StorageError("cannot cut torn tail of \(journalPath): \(String(cString: strerror(errno)))")
                }
            }
        case nil:
            break
        }
        let menu = ledger.menu
        var lastLSN = snapshotLSN
        for (offset, record) in read.records {
            guard let lsn = record.lsn else {
                throw StorageError("journal \(journalPath) holds a snapshot record at offset \(offset); refusing to start")
            }
            guard lsn > snapshotLSN else { continue }  // already in the snapshot (compaction was interrupted)
            guard lsn == lastLSN + 1 else {
                throw StorageError("journal \(journalPath) skips from lsn \(lastLSN) to \(lsn) at offset \(offset); refusing to start")
            }
            lastLSN = lsn
            switch record {
            case let .order(_, seq, juice, count, key, left):
                guard let j = menu.juiceIndex(juice) else {
                    ledger.skip(toSeq: seq, order: true)  // a juice the menu no longer has
                    continue
                }
                let touched = left.compactMap { v in menu.fruitIndex(v.name).map { FruitValue(fruit: $0, value: v.value) } }
                apply(Change(seq: seq, kind: .order(OrderRequest(juice: j, count: count, key: key)), touched: touched), &ledger, &history)
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
                apply(Change(seq: seq, kind: .restock(fruit: f, amount: amount), touched: [FruitValue(fruit: f, value: total)]), &ledger, &history)
            case let .set(_, seq, fruit, value):
                guard let f = menu.fruitIndex(fruit) else {
                    ledger.skip(toSeq: seq, order: false)
                    continue
                }
                apply(Change(seq: seq, kind: .set(fruit: f, amount: value), touched: [FruitValue(fruit: f, value: value)]), &ledger, &history)
            default:
                break
            }
        }
        return (lastLSN, read.validLength)
    }

    private func apply(_ change: Change, _ ledger: inout StockLedger, _ history: inout EventHistory) {
        ledger.replay(change)
        var line: [UInt8] = []
        Wire.appendEvent(seq: change.seq, change.touched, menu: ledger.menu, to: &line)
        history.append(seq: change.seq, line: line)
    }

    // MARK: - Files

    /// Write a temp file, fsync it, rename it into place, fsync the directory: after a crash the
    /// file is either the old one or the new one, whole.
    static func writeAtomically(_ bytes: [UInt8], to path: String, directory: String) throws(StorageError) {
        let temp = path + ".tmp"
        let fd = Platform.open(temp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw StorageError("cannot create \(temp): \(String(cString: strerror(errno)))") }
        let ok = writeAll(fd, bytes) && Platform.syncFile(fd) == 0
        let code = errno
        close(fd)
        guard ok else { throw StorageError("cannot write \(temp): \(String(cString: strerror(code)))") }
        guard rename(temp, path) == 0 else { throw StorageError("cannot rename \(temp): \(String(cString: strerror(errno)))") }
        try syncDirectory(directory)
    }

    static func syncDirectory(_ directory: String) throws(StorageError) {
        let fd = Platform.open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw StorageError("cannot open directory \(directory): \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        guard Platform.syncFile(fd) == 0 else { throw StorageError("cannot fsync directory \(directory): \(String(cString: strerror(errno)))") }
    }

    static func writeAll(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let n = write(fd, raw.baseAddress! + offset, raw.count - offset)
                if n < 0 {
                    if errno == EINTR { continue }
                    return false
                }
                offset += n
            }
            return true
        }
    }
}

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
/// Opening it recovers the state (`Recovery`: load the snapshot, replay the journal records after
/// it) and refuses to start on corruption; only once every record has been judged does it change
/// anything on disk: cut off a torn tail (a crash mid-write), write a snapshot, save the menu.
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
        let snapshot = try storage.read(storage.snapshotPath)
        let journalFile = try storage.read(storage.journalPath)
        let ledger = StockLedger(menu: config.menu, initialStock: initialStock, overridingMenu: config.initialStockOverridesMenu)
        let recovered = try Recovery.recover(ledger, snapshot: snapshot, journal: journalFile)
        // Everything on disk has been judged: only now may anything there change.
        if snapshot == nil && journalFile == nil {
            // A brand-new store: record its initial stock at once. The journal only records the
            // fruits each change touches, so without this a restart with another
            // --initial-stock (or menu) would rebuild untouched fruits wrongly.
            try writeAtomically(snapshotBytes(recovered.ledger, lsn: 0), to: storage.snapshotPath, directory: directory)
        }
        if let torn = recovered.tornTail {
            Log.warning("journal \(storage.journalPath): torn record at offset \(torn.offset) (\(torn.reason)), \((journalFile?.bytes.count ?? 0) - torn.offset) bytes; cutting it off (a write that a crash interrupted was never acknowledged)")
            guard truncate(storage.journalPath, off_t(torn.offset)) == 0 else {
                throw StorageError("cannot cut torn tail of \(storage.journalPath): \(String(cString: strerror(errno)))")
            }
        }
        let menuPath = directory + "/" + Storage.menuName
        if let saved = FileManager.default.contents(atPath: menuPath), saved != Data(MenuFile.json(config.menu).utf8) {
            // The menu changed: new fruits got their initial stock just now. Record the state
            // under the new menu, so that stock is what every later start sees.
            try writeAtomically(snapshotBytes(recovered.ledger, lsn: recovered.lsn), to: storage.snapshotPath, directory: directory)
        }
        let journal = try Journal(path: storage.journalPath, directory: directory, validLength: recovered.journalLength)
        try storage.saveMenu(config.menu)
        return Opened(ledger: recovered.ledger, recovered: RecoveredState(history: recovered.history, lsn: recovered.lsn),
                      journal: journal, journalBytes: recovered.journalLength, lockFD: lockFD)
    }

    /// A data file's bytes, or nil if it does not exist.
    private func read(_ path: String) throws(StorageError) -> Recovery.File? {
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        guard let data = FileManager.default.contents(atPath: path) else { throw StorageError("cannot read \(path)") }
        return Recovery.File(path: path, bytes: [UInt8](data))
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
        // Judged read-only, with the menu the data was written with.
        let ledger = try Recovery.recover(StockLedger(menu: old, initialStock: 0),
                                          snapshot: read(snapshotPath), journal: read(journalPath)).ledger
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

    /// The whole state as snapshot records.
    static func snapshotBytes(_ ledger: StockLedger, lsn: UInt64) -> [UInt8] {
        let menu = ledger.menu
        var records: [JournalRecord] = [.header(lsn: lsn, seq: ledger.seq, served: ledger.ordersServed, refused: ledger.ordersRefused)]
        for (i, fruit) in menu.fruits.enumerated() { records.append(.fruit(name: fruit.name, stock: ledger.stock[i])) }
        for (j, juice) in menu.juices.enumerated() { records.append(.sold(juice: juice.name, count: ledger.sold[j])) }
        for (j, juice) in menu.juices.enumerated() { records.append(.lost(juice: juice.name, count: ledger.lost[j])) }
        for (i, fruit) in menu.fruits.enumerated() { records.append(.short(fruit: fruit.name, count: ledger.short[i])) }
        for (key, entry) in ledger.keys.inOrder {
            records.append(.key(key: key, juice: menu.juices[entry.juice].name, count: entry.count,
                                reply: String(decoding: entry.reply, as: UTF8.self)))
        }
        records.append(.end(records: records.count))
        var out: [UInt8] = []
        for record in records { out.append(contentsOf: record.framed()) }
        return out
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

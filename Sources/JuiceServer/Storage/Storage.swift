import Dispatch
import Foundation
import JuicePlatform
import JuiceCore

/// The data directory:
///
///     <dir>/LOCK       held (flock) while a server uses the directory
///     <dir>/menu.json  the menu the data was written with
///     <dir>/snapshot   the whole state at one journal position (`Snapshot`)
///     <dir>/journal    the changes after that snapshot, one framed record each (`JournalFile`)
///
/// Opening it recovers the state (`Recovery`: load the snapshot, replay the journal records after
/// it) and refuses to start on corruption; only once every record has been judged does it change
/// anything on disk: cut off a torn tail (a crash mid-write), write a snapshot, save the menu.
/// Then it builds the parts the running store uses (`JournalFile` under a `GroupCommit`), which
/// never call back into it.
struct Storage {
    static let journalName = "journal"
    static let snapshotName = "snapshot"
    static let menuName = "menu.json"

    let directory: String
    var journalPath: String { directory + "/" + Storage.journalName }
    var snapshotPath: String { directory + "/" + Storage.snapshotName }
    var menuPath: String { directory + "/" + Storage.menuName }

    /// A recovered store, ready to run.
    struct Opened {
        var ledger: StockLedger
        /// The changes replayed from the journal, for SINCE.
        var history: EventHistory
        /// The last journal position recovered: everything up to it is on disk.
        var lsn: UInt64
        var journal: GroupCommit
        /// The held LOCK file; closed when the server stops.
        var lockFD: Int32
    }

    /// `loop` is the queue the store runs on: the journal reports finished writes there.
    static func open(_ config: ServerConfig, initialStock: Int, loop: DispatchQueue) throws(StorageError) -> Opened {
        guard let directory = config.dataDirectory else { throw StorageError("no data directory") }
        let storage = Storage(directory: directory)
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        } catch {
            throw StorageError("cannot create data directory \(directory): \(error.localizedDescription)")
        }
        let lockFD = try storage.lock()
        do {
            return try storage.recover(config, initialStock: initialStock, loop: loop, lockFD: lockFD)
        } catch {
            // A refused start lets the directory go: a later start (in this process, too) must
            // not find it "in use".
            Platform.close(lockFD)
            throw error
        }
    }

    /// Judges what is on disk and opens the journal, under the held lock.
    private func recover(_ config: ServerConfig, initialStock: Int, loop: DispatchQueue,
                         lockFD: Int32) throws(StorageError) -> Opened {
        try checkMenu(config.menu, accept: config.acceptMenuChange)
        let snapshot = try read(snapshotPath)
        let journalFile = try read(journalPath)
        let ledger = StockLedger(menu: config.menu, initialStock: initialStock, overridingMenu: config.initialStockOverridesMenu)
        let recovered = try Recovery.recover(ledger, snapshot: snapshot, journal: journalFile)
        // Everything on disk has been judged: only now may anything there change.
        if snapshot == nil && journalFile == nil {
            // A brand-new store: record its initial stock at once. The journal only records the
            // fruits each change touches, so without this a restart with another
            // --initial-stock (or menu) would rebuild untouched fruits wrongly.
            try Snapshot.write(Snapshot.encode(recovered.ledger, lsn: 0), to: snapshotPath, directory: directory)
        }
        if let torn = recovered.tornTail {
            // Cut off by `JournalFile` below, which opens the journal at `journalLength`.
            Log.warning("journal \(journalPath): torn record at offset \(torn.offset) (\(torn.reason)), \((journalFile?.bytes.count ?? 0) - torn.offset) bytes; cutting it off (a write that a crash interrupted was never acknowledged)")
        }
        let menuJSON = Array(MenuFile.json(config.menu).utf8)
        let savedMenu = FileManager.default.contents(atPath: menuPath).map { [UInt8]($0) }
        if let savedMenu, savedMenu != menuJSON {
            // The menu changed: new fruits got their initial stock just now. Record the state
            // under the new menu, so that stock is what every later start sees.
            try Snapshot.write(Snapshot.encode(recovered.ledger, lsn: recovered.lsn), to: snapshotPath, directory: directory)
        }
        let file = try JournalFile(path: journalPath, directory: directory, validLength: recovered.journalLength)
        // Only when it changed: a start with the same menu writes nothing here, so a store on a
        // full disk can start (read-only, see `GroupCommit`) and serve.
        if savedMenu != menuJSON {
            try AtomicFile.write(menuJSON, to: menuPath, directory: directory)
        }
        let journal = try GroupCommit(file: file, snapshotPath: snapshotPath, directory: directory, lsn: recovered.lsn,
                                      journalBytes: recovered.journalLength, journalMaxBytes: config.journalMaxBytes,
                                      recordBound: JournalRecord.maxBytes(under: config.menu), loop: loop)
        return Opened(ledger: recovered.ledger, history: recovered.history, lsn: recovered.lsn, journal: journal, lockFD: lockFD)
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
        guard fd >= 0 else { throw StorageError("cannot open \(directory)/LOCK", errno: errno) }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            Platform.close(fd)
            throw StorageError("data directory \(directory) is in use by another juice-server")
        }
        return fd
    }

    // MARK: - Menu

    /// A data directory remembers its menu. A new menu may add fruits and juices freely; dropping a
    /// fruit that still has stock needs `--accept-menu-change` (that stock would be lost).
    private func checkMenu(_ menu: Menu, accept: Bool) throws(StorageError) {
        guard let data = FileManager.default.contents(atPath: menuPath) else { return }
        guard case .success(let old) = MenuFile.parse(data) else {
            throw StorageError("\(menuPath) is not a valid menu; move it away to start over")
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
}

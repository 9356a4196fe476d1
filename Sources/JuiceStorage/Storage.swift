import Foundation
import JuiceCore
import JuiceDomain
import JuicePlatform
import JuiceLog

/// The data directory:
///
///     <dir>/LOCK       held (flock) while a server uses the directory
///     <dir>/menu.json  the menu the data was written with
///     <dir>/calendar   the time zone and day start its history was recorded under
///     <dir>/snapshot   the whole state at one journal position (`Snapshot`)
///     <dir>/journal    the changes after that snapshot, one framed record each (`JournalFile`);
///                      each compaction starts a new one, written as journal.next and renamed
///     <dir>/store-id   the store's random id, made with the store (`StoreIdentity`)
///
/// Opening it recovers the state (`Recovery`: load the snapshot, replay the journal records after
/// it) and refuses to start on corruption; only once every record has been judged does it change
/// anything on disk: cut off a torn tail (a crash mid-write), write a snapshot, save the menu.
/// It takes only what it needs (a directory, a menu, the new store's stock) and hands back the
/// recovered state, the changes replayed and the opened `JournalFile`: the caller (`Server.make`)
/// builds the running parts (`GroupCommit` on the loop, the SINCE history) from them.
package struct Storage {
    package static let journalName = "journal"
    package static let snapshotName = "snapshot"
    package static let menuName = "menu.json"
    package static let calendarName = "calendar"

    package let directory: String
    package var journalPath: String { directory + "/" + Storage.journalName }
    package var snapshotPath: String { directory + "/" + Storage.snapshotName }
    package var menuPath: String { directory + "/" + Storage.menuName }
    package var calendarPath: String { directory + "/" + Storage.calendarName }

    /// What a start asks of the data: the menu to run with, and a new store's stock.
    package struct Options {
        package var menu: Menu
        package var initialStock: Int
        /// `initialStock` for every fruit, even those the menu gives their own.
        package var initialStockOverridesMenu = false
        /// Start even if the menu drops a fruit the data still has in stock.
        package var acceptMenuChange = false
        package var keyPolicy = KeyMemory.Policy()
        /// The business day new changes are counted by (`--timezone`, `--day-starts`).
        package var calendar = BusinessCalendar()

        package init(menu: Menu, initialStock: Int, initialStockOverridesMenu: Bool = false, acceptMenuChange: Bool = false,
                     keyPolicy: KeyMemory.Policy = KeyMemory.Policy(), calendar: BusinessCalendar = BusinessCalendar()) {
            self.menu = menu
            self.initialStock = initialStock
            self.initialStockOverridesMenu = initialStockOverridesMenu
            self.acceptMenuChange = acceptMenuChange
            self.keyPolicy = keyPolicy
            self.calendar = calendar
        }
    }

    /// A recovered store, ready to run.
    package struct Opened {
        package var ledger: StockLedger
        /// The last changes replayed from the journal (oldest first), for SINCE.
        package var recentChanges: [Change]
        /// The last journal position recovered: everything up to it is on disk.
        package var lsn: UInt64
        /// The journal, open for appending after its `journalLength` bytes of good records.
        package var journal: JournalFile
        package var journalLength: Int
        package var snapshotPath: String
        /// The held LOCK file; closed when the server stops.
        package var lockFD: Int32
        /// The store's id (`StoreIdentity`).
        package var storeID: String
    }

    package static func open(directory: String, _ options: Options) throws(StorageError) -> Opened {
        let storage = Storage(directory: directory)
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        } catch {
            throw .cannotCreateDirectory(directory, reason: error.localizedDescription)
        }
        let lockFD = try storage.lock()
        do {
            return try storage.recover(options, lockFD: lockFD)
        } catch {
            // A refused start lets the directory go: a later start (in this process, too) must
            // not find it "in use".
            Platform.close(lockFD)
            throw error
        }
    }

    /// Judges what is on disk and opens the journal, under the held lock.
    private func recover(_ options: Options, lockFD: Int32) throws(StorageError) -> Opened {
        try checkMenu(options.menu, accept: options.acceptMenuChange)
        let snapshot = try read(snapshotPath)
        let journalFile = try read(journalPath)
        // The journal's records are counted into days and hours under the calendar they were
        // recorded under: a changed --timezone or --day-starts applies from now on only.
        let savedCalendar = try readCalendar()
        let ledger = StockLedger(menu: options.menu, initialStock: options.initialStock,
                                 overridingMenu: options.initialStockOverridesMenu, keyPolicy: options.keyPolicy,
                                 calendar: savedCalendar ?? options.calendar)
        var recovered = try Recovery.recover(ledger, snapshot: snapshot, journal: journalFile)
        // Everything on disk has been judged: only now may anything there change.
        let storeID = try StoreIdentity.load(directory: directory, brandNew: snapshot == nil && journalFile == nil)
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
        let menuJSON = Array(MenuFile.json(options.menu).utf8)
        let savedMenu = FileManager.default.contents(atPath: menuPath).map { [UInt8]($0) }
        let calendarChanged = savedCalendar.map { $0 != options.calendar } ?? false
        recovered.ledger.setCalendar(options.calendar)
        if (savedMenu != nil && savedMenu != menuJSON) || calendarChanged {
            // The menu changed: new fruits got their initial stock just now. Record the state
            // under the new menu, so that stock is what every later start sees. Or the calendar
            // changed: the hours the journal holds were counted under the old one, and the
            // snapshot keeps them so before the new one applies.
            try Snapshot.write(Snapshot.encode(recovered.ledger, lsn: recovered.lsn), to: snapshotPath, directory: directory)
        }
        // A new journal that a compaction was writing when it crashed was never renamed into
        // place: nothing reads it, and it goes.
        JournalFile.removeLeftover(of: journalPath)
        let file = try JournalFile(path: journalPath, directory: directory, validLength: recovered.journalLength,
                                   lastRecord: recovered.lastRecordOffset)
        // Only when it changed: a start with the same menu writes nothing here, so a store on a
        // full disk can start (read-only, see `GroupCommit`) and serve.
        if savedMenu != menuJSON {
            try AtomicFile.write(menuJSON, to: menuPath, directory: directory)
        }
        if savedCalendar != options.calendar {
            let text = Array(Storage.calendarText(options.calendar).utf8)
            if savedCalendar == nil {
                // A directory from before history (or new): nothing was counted under another
                // calendar yet, so a full disk need not stop the start; the next one writes it.
                do { try AtomicFile.write(text, to: calendarPath, directory: directory) } catch {
                    Log.warning("cannot write \(calendarPath) (\(error)); the history is counted in \(options.calendar.timeZone.identifier) from \(options.calendar.dayStartText)")
                }
            } else {
                try AtomicFile.write(text, to: calendarPath, directory: directory)
            }
        }
        return Opened(ledger: recovered.ledger, recentChanges: recovered.recentChanges, lsn: recovered.lsn, journal: file,
                      journalLength: recovered.journalLength, snapshotPath: snapshotPath, lockFD: lockFD,
                      storeID: storeID)
    }

    /// `Asia/Seoul 04:00`: the calendar file's one line.
    package static func calendarText(_ calendar: BusinessCalendar) -> String {
        calendar.timeZone.identifier + " " + calendar.dayStartText + "\n"
    }

    /// The calendar the data was recorded under, or nil for a directory without one (new, or
    /// from before history).
    private func readCalendar() throws(StorageError) -> BusinessCalendar? {
        guard FileManager.default.fileExists(atPath: calendarPath) else { return nil }
        guard let data = FileManager.default.contents(atPath: calendarPath) else { throw .unreadable(path: calendarPath) }
        guard let calendar = Storage.parseCalendar(String(decoding: data, as: UTF8.self)) else { throw .invalidCalendar(path: calendarPath) }
        return calendar
    }

    /// The calendar file's text (`Asia/Seoul 04:00`), or nil if it is not one.
    package static func parseCalendar(_ text: String) -> BusinessCalendar? {
        let fields = text.split(whereSeparator: { $0 == " " || $0 == "\n" })
        guard fields.count == 2, let zone = TimeZone(identifier: String(fields[0])),
              let minutes = BusinessCalendar.minutes(ofClock: String(fields[1])) else { return nil }
        return BusinessCalendar(timeZone: zone, dayStartMinutes: minutes)
    }

    /// A data file's bytes, or nil if it does not exist.
    private func read(_ path: String) throws(StorageError) -> Recovery.File? {
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        guard let data = FileManager.default.contents(atPath: path) else { throw .unreadable(path: path) }
        return Recovery.File(path: path, bytes: [UInt8](data))
    }

    /// One server per directory: two writers would interleave their journals.
    private func lock() throws(StorageError) -> Int32 {
        let fd = Platform.open(directory + "/LOCK", O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw .failed(.openLock, path: directory + "/LOCK", errno: errno) }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            Platform.close(fd)
            throw .inUse(directory: directory)
        }
        return fd
    }

    // MARK: - Menu

    /// A data directory remembers its menu. A new menu may add fruits and juices freely; dropping a
    /// fruit that still has stock, or pricing in another currency than the sales on disk, needs
    /// `--accept-menu-change` (that stock would be lost; those amounts would read as another sum).
    private func checkMenu(_ menu: Menu, accept: Bool) throws(StorageError) {
        guard let data = FileManager.default.contents(atPath: menuPath) else { return }
        guard case .success(let old) = MenuFile.parse(data) else {
            throw .invalidMenu(path: menuPath)
        }
        let dropped = old.fruits.map(\.name).filter { menu.fruitIndex($0) == nil }
        if !dropped.isEmpty, !accept {
            // Judged read-only, with the menu the data was written with.
            let ledger = try Recovery.recover(StockLedger(menu: old, initialStock: 0),
                                              snapshot: read(snapshotPath), journal: read(journalPath)).ledger
            let stocked = dropped.filter { ledger.stock[old.fruitIndex($0)!] > 0 }
            guard stocked.isEmpty else {
                let list = stocked.map { "\($0)=\(ledger.stock[old.fruitIndex($0)!])" }.joined(separator: " ")
                throw .menuDropsStock(directory: directory, stocked: list)
            }
        }
        // Amounts on disk are minor units of the currency they were taken in: read under
        // another one they would be another sum of money (₩5,000 as $50.00).
        // A menu without prices shows no money at all, so only another currency is refused.
        if let was = old.currency?.code, let now = menu.currency?.code, was != now, !accept {
            throw .menuChangesCurrency(directory: directory, from: was, to: now)
        }
    }
}

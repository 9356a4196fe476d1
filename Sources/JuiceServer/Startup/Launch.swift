import JuiceCore
import JuiceDomain
import JuiceStorage
import JuicePlatform
import JuiceLog
import JuiceLoop
import JuiceServices
import JuiceLine
import JuiceHTTP

extension Server {
    /// Builds a server from its configuration: opens (and recovers) the data directory, or a
    /// fresh in-memory store. Call `start()` on the result.
    ///
    /// Storage hands back what it recovered; the running parts are built here, where the loop
    /// is known: the journal's group commit on the loop's queue, and the catch-up history as
    /// the values of the changes replayed (each protocol words them as events).
    public static func make(_ config: ServerConfig) throws(StorageError) -> Server {
        let executor = LoopExecutor()
        let menu = config.menu
        guard let directory = config.dataDirectory else {
            let ledger = StockLedger(menu: menu, initialStock: config.initialStock, overridingMenu: config.initialStockOverridesMenu,
                                     keyPolicy: config.keyPolicy, calendar: config.calendar)
            let store = FruitStore(executor: executor, ledger: ledger, journal: nil, lostSalesPerMinute: config.lostSalesPerMinute,
                                   storeID: StoreIdentity.fresh(), backupEncoder: BackupFile.encoder())
            return Server(config: config, executor: executor, store: store, durableLSN: 0, lockFD: -1)
        }
        let opened = try Storage.open(directory: directory, Storage.Options(
            menu: menu, initialStock: config.initialStock, initialStockOverridesMenu: config.initialStockOverridesMenu,
            acceptMenuChange: config.acceptMenuChange, keyPolicy: config.keyPolicy, calendar: config.calendar))
        // Made on the loop, which runs nothing yet: from here on it is the loop's (and the store's).
        let made = executor.queue.sync {
            Result { () throws(StorageError) in
                try GroupCommit(file: opened.journal, snapshotPath: opened.snapshotPath, directory: directory,
                                lsn: opened.lsn, journalBytes: opened.journalLength,
                                recordBound: JournalRecord.maxBytes(under: menu), loop: executor.queue)
            }
        }
        let journal: GroupCommit
        switch made {
        case .success(let made):
            journal = made
        case .failure(let error):
            Platform.close(opened.lockFD)
            throw error
        }
        var history = EventHistory(for: menu)
        for change in opened.recentChanges {
            history.append(seq: change.seq, touched: change.touched)
        }
        let store = FruitStore(executor: executor, ledger: opened.ledger, journal: journal, history: history,
                               compactAfter: config.journalMaxBytes, lostSalesPerMinute: config.lostSalesPerMinute, storeID: opened.storeID,
                               backupEncoder: BackupFile.encoder())
        Log.lifecycle("data directory \(directory): recovered seq=\(opened.ledger.seq) store=\(opened.storeID) (journal position \(opened.lsn))")
        return Server(config: config, executor: executor, store: store, durableLSN: opened.lsn, lockFD: opened.lockFD)
    }
}

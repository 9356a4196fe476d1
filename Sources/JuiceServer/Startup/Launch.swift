import JuiceCore

extension Server {
    /// Builds a server from its configuration: opens (and recovers) the data directory, or a
    /// fresh in-memory store. Call `start()` on the result.
    public static func make(_ config: ServerConfig) throws(StorageError) -> Server {
        let executor = LoopExecutor()
        let initialStock = config.initialStock
        guard config.dataDirectory != nil else {
            let store = FruitStore(executor: executor, ledger: StockLedger(menu: config.menu, initialStock: initialStock,
                                                                                   overridingMenu: config.initialStockOverridesMenu), journal: nil)
            return Server(config: config, executor: executor, store: store, durableLSN: 0, lockFD: -1)
        }
        let opened = try Storage.open(config, initialStock: initialStock, loop: executor.queue)
        let store = FruitStore(executor: executor, ledger: opened.ledger, journal: opened.journal, history: opened.history)
        Log.lifecycle("data directory \(config.dataDirectory!): recovered seq=\(opened.ledger.seq) (journal position \(opened.lsn))")
        return Server(config: config, executor: executor, store: store, durableLSN: opened.lsn, lockFD: opened.lockFD)
    }
}

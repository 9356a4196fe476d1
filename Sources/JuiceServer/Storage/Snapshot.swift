import JuiceCore

/// The whole state at one journal position, as records: `H`, then `F`, `D`, `L`, `T`, `K` and `Y`,
/// then `E` counting the records before it (PROTOCOL.md, Storage). Written when a store is
/// created, after a menu change, and by each compaction (see `GroupCommit`); always whole, with
/// `AtomicFile`, so recovery takes any damage in it for corruption, never for a torn write.
enum Snapshot {
    static func encode(_ ledger: StockLedger, lsn: UInt64) -> [UInt8] {
        let menu = ledger.menu
        var records: [JournalRecord] = [.header(lsn: lsn, seq: ledger.seq, served: ledger.ordersServed, refused: ledger.ordersRefused)]
        for (i, fruit) in menu.fruits.enumerated() { records.append(.fruit(name: fruit.name, stock: ledger.stock[i])) }
        for (j, juice) in menu.juices.enumerated() { records.append(.sold(juice: juice.name, count: ledger.sold[j])) }
        for (j, juice) in menu.juices.enumerated() { records.append(.lost(juice: juice.name, count: ledger.lost[j])) }
        for (i, fruit) in menu.fruits.enumerated() { records.append(.short(fruit: fruit.name, count: ledger.short[i])) }
        for (key, entry) in ledger.keys.inOrder {
            let (write, name, number): (JournalRecord.KeyedWrite, String, Int) = switch entry.request {
            case .order(let juice, let count): (.order, menu.juices[juice].name, count)
            case .restock(let fruit, let amount): (.restock, menu.fruits[fruit].name, amount)
            case .set(let fruit, let amount): (.set, menu.fruits[fruit].name, amount)
            }
            records.append(.rememberedKey(key: key, write: write, name: name, number: number,
                                          reply: String(decoding: Wire.replyLine(to: entry.first, menu: menu), as: UTF8.self),
                                          time: entry.time))
        }
        for (slot, counters) in ledger.history.inOrder {
            var counts: [JournalRecord.HourCount] = []
            for kind in SalesHistory.Counters.Kind.allCases {
                let names = kind.perJuice ? menu.juices.map(\.name) : menu.fruits.map(\.name)
                for (i, name) in names.enumerated() where counters[kind, i] > 0 {
                    counts.append(JournalRecord.HourCount(kind, name, counters[kind, i]))
                }
            }
            records.append(.hour(start: slot.start, day: slot.day, offset: slot.offset, served: counters.served,
                                 refused: counters.refused, counts: counts))
        }
        records.append(.end(records: records.count))
        var out: [UInt8] = []
        for record in records { out.append(contentsOf: record.framed()) }
        return out
    }

    /// Puts a snapshot in place atomically: after a crash the file is the old one or this one.
    static func write(_ bytes: [UInt8], to path: String, directory: String) throws(StorageError) {
        try AtomicFile.write(bytes, to: path, directory: directory)
    }
}

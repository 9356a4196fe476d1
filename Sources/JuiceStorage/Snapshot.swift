import JuiceCore
import JuiceDomain
import JuicePlatform
import JuiceLog

/// The whole state at one journal position, as records: `H`, then `F`, `D`, `L`, `T`, `K`, `Y`, and
/// the tills' `P`, `X` and `Q` and today's sales `G` (version 3),
/// then `E` counting the records before it (PROTOCOL.md, Storage). Written when a store is
/// created, after a menu change, and by each compaction (see `GroupCommit`); always whole, with
/// `AtomicFile`, so recovery takes any damage in it for corruption, never for a torn write.
package enum Snapshot {
    /// `hours`: where the hour records framed last time are kept (a compaction's, a backup's):
    /// the ones that did not change are copied, not framed again. Nil: all framed here.
    package static func encode(_ ledger: StockLedger, lsn: UInt64, hours cache: HourRecordCache? = nil) -> [UInt8] {
        let menu = ledger.menu
        var records: [JournalRecord] = [.header(lsn: lsn, seq: ledger.seq, served: ledger.ordersServed, refused: ledger.ordersRefused)]
        for (i, fruit) in menu.fruits.enumerated() { records.append(.fruit(name: fruit.name, stock: ledger.stock[i])) }
        for (j, juice) in menu.juices.enumerated() { records.append(.sold(juice: juice.name, count: ledger.sold[j])) }
        for (j, juice) in menu.juices.enumerated() { records.append(.lost(juice: juice.name, count: ledger.lost[j])) }
        for (i, fruit) in menu.fruits.enumerated() { records.append(.short(fruit: fruit.name, count: ledger.short[i])) }
        // Version 3: each key with its scope and its first outcome as typed fields.
        for (key, scope, entry) in ledger.keys.inOrder {
            guard let outcome = JournalRecord.keyOutcome(entry.first, menu: menu) else { continue }
            records.append(.scopedKey(key: key, by: Writer(scope: scope), outcome: outcome, time: entry.time))
        }
        var out: [UInt8] = [], scratch: [UInt8] = []
        scratch.reserveCapacity(256)
        for record in records { record.appendFramed(to: &out, scratch: &scratch) }
        let hours = ledger.history.inOrder
        if let cache {
            cache.append(hours, menu: menu, to: &out)
        } else {
            let juiceNames = menu.juices.map(\.name), fruitNames = menu.fruits.map(\.name)
            for (slot, counters) in hours {
                hourRecord(slot, counters, juiceNames: juiceNames, fruitNames: fruitNames).appendFramed(to: &out, scratch: &scratch)
            }
        }
        var rest: [JournalRecord] = ledger.tills.snapshotRecords
        if ledger.money != MoneyTotals() { rest.append(.money(ledger.money)) }
        // Today's sales, which a VOID may still name (after the tills and the money: `G` is the last kind).
        if let day = ledger.sales.day {
            for sale in ledger.sales.all {
                rest.append(.sale(day: day, seq: sale.seq, juice: menu.juices[sale.juice].name, count: sale.count, by: sale.by,
                                  amount: sale.amount, key: sale.key, voidedBy: sale.voidedBy, time: sale.time))
            }
        }
        rest.append(.end(records: records.count + hours.count + rest.count))
        for record in rest { record.appendFramed(to: &out, scratch: &scratch) }
        return out
    }

    /// One hour's `Y` record: its counters that are not zero, juices' kinds by juice name,
    /// fruits' by fruit name.
    static func hourRecord(_ slot: BusinessCalendar.Slot, _ counters: SalesHistory.Counters,
                           juiceNames: [String], fruitNames: [String]) -> JournalRecord {
        var counts: [JournalRecord.HourCount] = []
        for kind in SalesHistory.Counters.Kind.allCases {
            let names = kind.perJuice ? juiceNames : fruitNames
            for (i, name) in names.enumerated() where counters[kind, i] > 0 {
                counts.append(JournalRecord.HourCount(kind, name, counters[kind, i]))
            }
        }
        return .hour(start: slot.start, day: slot.day, offset: slot.offset, served: counters.served,
                     refused: counters.refused, counts: counts)
    }

    /// Puts a snapshot in place atomically: after a crash the file is the old one or this one.
    package static func write(_ bytes: [UInt8], to path: String, directory: String) throws(StorageError) {
        try AtomicFile.write(bytes, to: path, directory: directory)
    }
}

import JuiceCore
import JuiceDomain
import JuiceStorage
import JuiceTestSupport
import Testing

/// The hour records a compaction or a backup keeps from its last encode (`HourRecordCache`):
/// the snapshot it makes is byte for byte the one framed from scratch, whatever changed since:
/// a new hour, a sale in the current hour, a sale counted into an old hour (a clock set back),
/// the oldest hours dropped.
@Suite(.onOwnThreads) struct HourRecordCacheTests {
    /// Orders at `times` (unix seconds), one banana each.
    static func sell(_ ledger: inout StockLedger, at times: [Int64]) {
        for time in times { _ = ledger.order(OrderRequest(juice: 1, count: 1), at: time) }
    }

    @Test("a snapshot with kept hour records is the one framed from scratch, through every kind of change")
    func sameBytes() {
        var ledger = StockLedger(menu: .standard, initialStock: 100_000)
        let day: Int64 = 86_400, start: Int64 = 1_790_000_000
        // 30 days, a few sales an hour on some hours.
        Self.sell(&ledger, at: (0..<30).flatMap { d in [3, 7, 11].map { start + Int64(d) * day + $0 * 3_600 } })
        let cache = HourRecordCache()
        func check(_ what: String) {
            let fresh = Snapshot.encode(ledger, lsn: 9, hours: nil)
            #expect(Snapshot.encode(ledger, lsn: 9, hours: cache) == fresh, "\(what)")
            // And again, now all from what was kept.
            #expect(Snapshot.encode(ledger, lsn: 9, hours: cache) == fresh, "\(what), twice")
        }
        check("first")
        Self.sell(&ledger, at: [start + 29 * day + 11 * 3_600 + 60])
        check("a sale in the newest hour")
        Self.sell(&ledger, at: [start + 30 * day])
        check("a new hour")
        Self.sell(&ledger, at: [start + 2 * day + 7 * 3_600 + 5])
        check("a sale counted into an old hour (the clock set back)")
        // The oldest days dropped, as after 400 days: a ledger recovered without them.
        var trimmed = StockLedger(menu: .standard, initialStock: 100_000)
        for (slot, counters) in ledger.history.inOrder.dropFirst(9) { trimmed.restoreHistory(slot, counters) }
        ledger = trimmed
        check("the oldest hours dropped")
        #expect(ledger.history.inOrder.count > 50)
    }
}

import JuiceCore
import JuiceDomain
import JuiceStorage
import JuicePlatform
import JuiceLog
import JuiceLoop
import JuiceServices
import JuiceLine
import JuiceHTTP
@testable import JuiceServer
import Testing

/// The ring of recent changes a catch-up replays: consecutive seqs, the oldest overwritten, a
/// gap or a change wider than a slot restarting it.
@Suite(.onOwnThreads) struct EventHistoryTests {
    func change(_ seq: UInt64, width: Int = 2) -> [FruitValue] {
        (0..<width).map { FruitValue(fruit: $0, value: Int(seq) * 10 + $0) }
    }

    @Test func itKeepsTheLastChangesInOrderAndForgetsTheOldest() {
        var history = EventHistory(capacity: 4, width: 2)
        for seq in UInt64(1)...10 { history.append(seq: seq, touched: change(seq, width: Int(seq % 2) + 1)) }
        #expect(history.touched(seq: 6) == nil)
        for seq in UInt64(7)...10 { #expect(history.touched(seq: seq) == change(seq, width: Int(seq % 2) + 1)) }
        #expect(history.reaches(after: 6, current: 10) && !history.reaches(after: 5, current: 10))
        #expect(history.touched(from: 8, through: 10) == [change(8, width: 1), change(9, width: 2), change(10, width: 1)])
        #expect(history.touched(from: 5, through: 10) == nil)
    }

    @Test func aGapOrAWiderChangeRestartsIt() {
        var history = EventHistory(capacity: 4, width: 2)
        history.append(seq: 1, touched: change(1))
        history.append(seq: 2, touched: change(2))
        history.append(seq: 5, touched: change(5))  // a snapshot reload skipped 3 and 4
        #expect(history.touched(seq: 2) == nil && history.touched(seq: 5) == change(5))
        history.append(seq: 6, touched: change(6, width: 3))
        #expect(history.touched(seq: 5) == nil && history.touched(seq: 6) == change(6, width: 3))
        history.append(seq: 7, touched: change(7, width: 1))
        #expect(history.reaches(after: 5, current: 7) && history.touched(seq: 7) == change(7, width: 1))
    }
}

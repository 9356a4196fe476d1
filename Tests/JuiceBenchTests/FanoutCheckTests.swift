import Testing
@testable import juice_bench

/// The verdict on "every watcher got every event, in order, once".
@Suite(.onOwnThreads) struct FanoutCheckTests {
    let good = WatcherTally(events: 3, unattributedEvents: 0, firstSequence: 10, lastSequence: 12, sequenceFaults: 0)

    func check(_ watchers: [WatcherTally], expected: Int = 3, sequence: Bool = true, first: UInt64? = 10,
               last: UInt64? = 12, orderFaults: Int = 0) -> FanoutCheck {
        checkFanout(expected: expected, watchers: watchers, checkSequence: sequence, firstOrderSequence: first,
                    lastOrderSequence: last, orderSequenceFaults: orderFaults)
    }

    func problem(_ verdict: FanoutCheck) -> String {
        if case .failed(let why) = verdict { return why }
        return ""
    }

    @Test func everyWatcherWithEveryEventInOrderIsOK() {
        #expect(check([good, good, good]) == .ok)
        #expect(check([good], sequence: false, first: nil, last: nil) == .ok)
        #expect(check([good]).word == "ok")
    }

    @Test func aWatcherThatMissedEventsFails() {
        var missed = good
        missed.events = 1
        let verdict = check([good, missed, good], sequence: false)
        #expect(verdict.word == "failed")
        #expect(problem(verdict) == "1 of 3 watchers missed events (fewest: 1 of 3)")
    }

    @Test func extraOrUnattributedEventsFail() {
        var extra = good
        extra.events = 5
        #expect(problem(check([good, extra], sequence: false)) == "1 watchers got more events than orders (most: 5 for 3 orders)")
        var stray = good
        stray.unattributedEvents = 1
        #expect(check([stray], sequence: false) != .ok)
    }

    @Test func sequenceFaultsCountOnlyWhenSequencesAreChecked() {
        var gap = good
        gap.sequenceFaults = 2
        #expect(check([gap], sequence: false) == .ok)
        #expect(problem(check([gap, good])) == "1 watchers saw a seq gap, duplicate or reordering")
        #expect(problem(check([good], orderFaults: 4)) == "4 order replies had no seq or a seq not following the previous one")
    }

    @Test func aWatcherWhoseSeqRangeDiffersFromTheOrdersFails() {
        var shifted = good
        shifted.firstSequence = 11
        shifted.lastSequence = 13
        #expect(problem(check([good, shifted])) == "1 watchers' seq range differs from the orders' seq 10...12")
        #expect(problem(check([good], first: nil, last: nil)) == "1 watchers' seq range differs from the orders' seq ?...?")
    }

    @Test func noOrdersAndNoEventsIsOK() {
        let idle = WatcherTally(events: 0, unattributedEvents: 0, firstSequence: nil, lastSequence: nil, sequenceFaults: 0)
        #expect(check([idle, idle], expected: 0, first: nil, last: nil) == .ok)
    }

    @Test func severalProblemsAreAllReported() {
        var missed = good
        missed.events = 2
        missed.sequenceFaults = 1
        let why = problem(check([missed, good]))
        #expect(why.contains("missed events") && why.contains("seq gap") && why.contains("; "), "\(why)")
    }
}

import Foundation
import Testing
@testable import JuiceCore
import JuiceDomain
import JuiceStorage

/// The business calendar and the history it files changes under: day starts, daylight saving
/// days of 23 and 25 hours, the 400 days kept.
@Suite(.onOwnThreads) struct ShopDayTests {
    static let seoul = TimeZone(identifier: "Asia/Seoul")!
    static let newYork = TimeZone(identifier: "America/New_York")!

    /// Unix seconds of a local wall time at a fixed UTC offset (hours).
    static func unix(_ y: Int64, _ m: Int64, _ d: Int64, _ h: Int64, _ min: Int64 = 0, offset: Int64) -> Int64 {
        BusinessCalendar.days(fromCivil: y, m, d) * 86_400 + h * 3600 + min * 60 - offset * 3600
    }

    static func day(_ text: String) -> Int32 { BusinessCalendar.day(ofDate: text)! }

    @Test func aSaleBeforeTheDayStartsBelongsToTheEveningBefore() {
        let calendar = BusinessCalendar(timeZone: Self.seoul, dayStartMinutes: 4 * 60)
        let early = calendar.slot(at: Self.unix(2026, 11, 25, 1, 30, offset: 9))
        #expect(BusinessCalendar.dateText(early.day) == "2026-11-24" && early.label == "01:00")
        #expect(BusinessCalendar.dateText(calendar.day(at: Self.unix(2026, 11, 25, 3, 59, offset: 9))) == "2026-11-24")
        let opening = calendar.slot(at: Self.unix(2026, 11, 25, 4, 0, offset: 9))
        #expect(BusinessCalendar.dateText(opening.day) == "2026-11-25" && opening.label == "04:00")
        #expect(opening.isoStart == "2026-11-25T04:00:00+09:00")
    }

    @Test func aDayThatStartsOffTheHourSplitsThatHour() {
        let calendar = BusinessCalendar(timeZone: Self.seoul, dayStartMinutes: 4 * 60 + 30)
        let before = calendar.slot(at: Self.unix(2026, 11, 25, 4, 10, offset: 9))
        let after = calendar.slot(at: Self.unix(2026, 11, 25, 4, 40, offset: 9))
        #expect(BusinessCalendar.dateText(before.day) == "2026-11-24" && before.label == "04:00")
        #expect(BusinessCalendar.dateText(after.day) == "2026-11-25" && after.label == "04:30")
        #expect(before != after)
    }

    /// Every slot of one business day, sampled every 10 minutes across it and a bit beyond.
    static func slots(of date: String, _ calendar: BusinessCalendar) -> [BusinessCalendar.Slot] {
        let target = day(date)
        let start = Int64(target) * 86_400 - 2 * 86_400
        var seen: [BusinessCalendar.Slot] = []
        for t in stride(from: start, to: start + 5 * 86_400, by: 600) {
            let slot = calendar.slot(at: t)
            if slot.day == target && seen.last != slot { seen.append(slot) }
        }
        return seen
    }

    @Test func daylightSavingDaysHave23And25HoursAsTheyWere() {
        let calendar = BusinessCalendar(timeZone: Self.newYork, dayStartMinutes: 4 * 60)
        // Clocks fell back at 02:00 on Sunday 2026-11-01, inside the business day of Saturday
        // 2026-10-31 (04:00 Saturday to 04:00 Sunday): 25 hours, 01:00 twice.
        let fall = Self.slots(of: "2026-10-31", calendar)
        #expect(fall.count == 25)
        #expect(fall.filter { $0.label == "01:00" }.map(\.isoStart) == ["2026-11-01T01:00:00-04:00", "2026-11-01T01:00:00-05:00"])
        #expect(fall.first?.label == "04:00" && fall.last?.label == "03:00")
        // They sprang forward at 02:00 on 2026-03-08: 23 hours, no 02:00.
        let spring = Self.slots(of: "2026-03-07", calendar)
        #expect(spring.count == 23)
        #expect(!spring.contains { $0.label == "02:00" })
        #expect(Self.slots(of: "2026-11-25", calendar).count == 24)
    }

    /// The history keeps the slot of its last change until that slot ends: a change just after
    /// the clocks fall back, or just after the day starts, must still go into a slot of its own.
    @Test func theSlotKeptBetweenChangesEndsAtAnOffsetChangeAndAtTheDayStart() {
        var history = SalesHistory(menu: .standard, calendar: BusinessCalendar(timeZone: Self.newYork, dayStartMinutes: 4 * 60 + 30))
        let fallBack = Self.unix(2026, 11, 1, 2, 0, offset: -4)  // 02:00 EDT is 01:00 EST
        history.orderServed(juice: 1, count: 1, touched: [], at: fallBack - 60)
        history.orderServed(juice: 1, count: 1, touched: [], at: fallBack + 60)
        let dayStart = Self.unix(2026, 11, 1, 4, 30, offset: -5)
        history.orderServed(juice: 1, count: 1, touched: [], at: dayStart - 60)
        history.orderServed(juice: 1, count: 1, touched: [], at: dayStart + 60)
        let slots = history.inOrder.map(\.slot)
        #expect(slots.map(\.isoStart) == ["2026-11-01T01:00:00-04:00", "2026-11-01T01:00:00-05:00",
                                           "2026-11-01T04:00:00-05:00", "2026-11-01T04:30:00-05:00"])
        #expect(slots.map { BusinessCalendar.dateText($0.day) } == ["2026-10-31", "2026-10-31", "2026-10-31", "2026-11-01"])
    }

    @Test func theHistoryFilesChangesByTheirTimeAndKeeps400Days() {
        let menu = Menu.standard
        var history = SalesHistory(menu: menu, calendar: BusinessCalendar(timeZone: Self.seoul))
        let first = Self.unix(2025, 1, 10, 12, offset: 9)
        history.orderServed(juice: 1, count: 2, touched: [FruitValue(fruit: 1, value: 0)], at: first)
        history.orderRefused(juice: 0, count: 1, short: [0], at: first + 60)
        history.restocked(fruit: 1, amount: 9, at: first + 120)
        let day = history.total(of: Self.day("2025-01-10"))
        #expect(day.served == 1 && day.refused == 1 && day[.sold, 1] == 2 && day[.lost, 0] == 1)
        #expect(day[.used, 1] == 4 && day[.ranOut, 1] == 1 && day[.short, 0] == 1 && day[.restocked, 1] == 9)
        let report = history.report(day: Self.day("2025-01-10"), today: Self.day("2025-01-10"))
        #expect(report.ranOut(fruit: 1) == "12:00" && report.ranOut(fruit: 0) == nil)
        // The 400 most recent days that saw a change are kept: a 401st day drops the oldest.
        for d in 1..<400 { history.orderServed(juice: 1, count: 1, touched: [], at: first + Int64(d) * 86_400) }
        #expect(history.total(of: Self.day("2025-01-10")).served == 1)
        history.orderServed(juice: 1, count: 1, touched: [], at: first + 400 * 86_400)
        #expect(history.total(of: Self.day("2025-01-10")).served == 0)
        #expect(history.total(of: Self.day("2025-01-11")).served == 1)
        #expect(history.hourCount == 400)
    }

    /// A clock that jumps years ahead for one change takes one day's place, not the history.
    @Test func oneChangeFromAClockYearsAheadDoesNotWipeTheHistory() {
        var history = SalesHistory(menu: .standard, calendar: BusinessCalendar(timeZone: Self.seoul))
        let first = Self.unix(2026, 1, 10, 12, offset: 9)
        for d in 0..<30 { history.orderServed(juice: 1, count: 1, touched: [], at: first + Int64(d) * 86_400) }
        history.orderServed(juice: 1, count: 1, touched: [], at: first + 3 * 365 * 86_400)
        history.orderServed(juice: 1, count: 1, touched: [], at: first + 30 * 86_400)
        #expect((0...30).allSatisfy { history.total(of: Self.day("2026-01-10") + Int32($0)).served == 1 })
    }

    @Test func datesAreExact() {
        #expect(BusinessCalendar.dateText(0) == "1970-01-01" && BusinessCalendar.dateText(Self.day("2024-02-29")) == "2024-02-29")
        for bad in ["2026-02-29", "2026-13-01", "2026-00-10", "2026-1-10", "20261110", "1969-12-31", "2026-11-25 ", "２０２６-11-25"] {
            #expect(BusinessCalendar.day(ofDate: bad) == nil, "\(bad)")
        }
        #expect(BusinessCalendar.weekday(Self.day("2026-11-25")) == "Wednesday")
        #expect(BusinessCalendar.minutes(ofClock: "04:00") == 240 && BusinessCalendar.minutes(ofClock: "23:59") == 1439)
        for bad in ["24:00", "4:00", "04:60", "0400", "04:00:00", "-1:00"] { #expect(BusinessCalendar.minutes(ofClock: bad) == nil, "\(bad)") }
    }
}

import Foundation

/// The shop's clock and calendar: which business day and which hour a moment belongs to.
///
/// A business day starts at `dayStart` local time (04:00 by default, as Toast's "end of business
/// day"): a sale at 01:30 belongs to the evening before. An hour is a local clock hour, so a
/// daylight-saving day has 23 or 25 of them, and the 25-hour day has two "01:00" hours, told
/// apart by their UTC offset. When the day starts off the hour (04:30), the hour it starts in is
/// split at the boundary, so no slot belongs to two days.
///
/// Only `TimeZone` comes from Foundation (the IANA database under /usr/share/zoneinfo); dates
/// are counted as days since 1970-01-01 and printed by hand.
package struct BusinessCalendar: Sendable, Equatable {
    package let timeZone: TimeZone
    /// Minutes after local midnight at which a business day starts (0...1439).
    package let dayStartMinutes: Int

    package static let defaultDayStartMinutes = 4 * 60

    package init(timeZone: TimeZone = .current, dayStartMinutes: Int = BusinessCalendar.defaultDayStartMinutes) {
        precondition((0..<1440).contains(dayStartMinutes))
        self.timeZone = timeZone
        self.dayStartMinutes = dayStartMinutes
    }

    /// The slot a moment is counted in: its start (unix seconds), its business day (days since
    /// 1970-01-01) and the local clock's offset from UTC then (seconds).
    package struct Slot: Sendable, Equatable, Hashable {
        package let start: Int64
        package let day: Int32
        package let offset: Int32

        package init(start: Int64, day: Int32, offset: Int32) { (self.start, self.day, self.offset) = (start, day, offset) }

        /// The local clock time the slot starts at, "HH:MM".
        package var label: String { BusinessCalendar.clock(Int((start + Int64(offset)).modulo(86_400)) / 60) }

        /// ISO 8601 with the offset: "2026-11-25T04:00:00+09:00".
        package var isoStart: String {
            let local = start + Int64(offset)
            let date = BusinessCalendar.dateText(Int32(local.floorDivided(by: 86_400)))
            return date + "T" + label + ":00" + BusinessCalendar.offsetText(offset, colon: true)
        }
    }

    package func slot(at unixSeconds: Int64) -> Slot {
        slotAndEnd(at: unixSeconds).slot
    }

    /// The slot of a moment and the moment it ends (unix seconds, exclusive): the next local hour,
    /// the next day start, or the zone's next offset change, whichever comes first. Every moment
    /// before it is in the same slot, so a caller may keep it (asking the zone costs far more).
    package func slotAndEnd(at unixSeconds: Int64) -> (slot: Slot, end: Int64) {
        let date = Date(timeIntervalSince1970: TimeInterval(unixSeconds))
        let offset = Int64(timeZone.secondsFromGMT(for: date))
        let local = unixSeconds + offset
        let dayStart = Int64(dayStartMinutes) * 60
        let day = (local - dayStart).floorDivided(by: 86_400)
        let dayBegins = day * 86_400 + dayStart
        let hourBegins = local.floorDivided(by: 3600) * 3600
        var end = min(hourBegins + 3600, dayBegins + 86_400) - offset
        if let change = timeZone.nextDaylightSavingTimeTransition(after: date) {
            end = min(end, Int64(change.timeIntervalSince1970.rounded(.up)))
        }
        return (Slot(start: max(hourBegins, dayBegins) - offset, day: Int32(day), offset: Int32(offset)), max(end, unixSeconds + 1))
    }

    /// The business day a moment belongs to (days since 1970-01-01).
    package func day(at unixSeconds: Int64) -> Int32 { slot(at: unixSeconds).day }

    /// "04:00"
    package var dayStartText: String { Self.clock(dayStartMinutes) }

    // MARK: - Text

    package static func clock(_ minutes: Int) -> String {
        let h = minutes / 60, m = minutes % 60
        return (h < 10 ? "0" : "") + String(h) + ":" + (m < 10 ? "0" : "") + String(m)
    }

    /// "+09:00" or "-0500".
    package static func offsetText(_ seconds: Int32, colon: Bool) -> String {
        var out: [UInt8] = []
        appendOffset(seconds, colon: colon, to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// `offsetText`'s bytes ("+0900" unless `colon`), appended: a snapshot writes one per hour.
    package static func appendOffset(_ seconds: Int32, colon: Bool = false, to out: inout [UInt8]) {
        out.append(seconds < 0 ? UInt8(ascii: "-") : UInt8(ascii: "+"))
        let minutes = Int(seconds.magnitude) / 60
        appendDigits(minutes / 60, width: 2, to: &out)
        if colon { out.append(UInt8(ascii: ":")) }
        appendDigits(minutes % 60, width: 2, to: &out)
    }

    /// `value` in decimal, zero-padded to `width` digits.
    private static func appendDigits(_ value: Int, width: Int, to out: inout [UInt8]) {
        var digits = 1, power = 10
        while value >= power { digits += 1; power *= 10 }
        for _ in digits..<max(digits, width) { out.append(UInt8(ascii: "0")) }
        out.append(decimal: value)
    }

    /// "HH:MM", 00:00 to 23:59, as `--day-starts` takes it: minutes after midnight.
    package static func minutes(ofClock text: String) -> Int? {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, parts.allSatisfy({ $0.count == 2 && $0.allSatisfy { $0.isASCII && $0.isNumber } }),
              let h = Int(parts[0]), let m = Int(parts[1]), h < 24, m < 60 else { return nil }
        return h * 60 + m
    }

    /// Days since 1970-01-01 as "YYYY-MM-DD" (proleptic Gregorian; Howard Hinnant's algorithm).
    package static func dateText(_ day: Int32) -> String {
        var out: [UInt8] = []
        appendDate(day, to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// `dateText`'s bytes, appended.
    package static func appendDate(_ day: Int32, to out: inout [UInt8]) {
        let (y, m, d) = civil(fromDays: Int64(day))
        if y < 0 { out.append(UInt8(ascii: "-")) }
        appendDigits(Int(y.magnitude), width: 4, to: &out)
        out.append(UInt8(ascii: "-"))
        appendDigits(Int(m), width: 2, to: &out)
        out.append(UInt8(ascii: "-"))
        appendDigits(Int(d), width: 2, to: &out)
    }

    /// "YYYY-MM-DD" (a real date, years 1970-9999) as days since 1970-01-01; nil otherwise.
    package static func day(ofDate text: String) -> Int32? {
        let b = Array(text.utf8)
        guard b.count == 10, b[4] == UInt8(ascii: "-"), b[7] == UInt8(ascii: "-") else { return nil }
        func number(_ r: Range<Int>) -> Int64? {
            var n: Int64 = 0
            for i in r {
                guard b[i] >= 0x30 && b[i] <= 0x39 else { return nil }
                n = n * 10 + Int64(b[i] - 0x30)
            }
            return n
        }
        guard let y = number(0..<4), let m = number(5..<7), let d = number(8..<10),
              y >= 1970, (1...12).contains(m), d >= 1, d <= daysIn(month: m, year: y) else { return nil }
        return Int32(days(fromCivil: y, m, d))
    }

    /// The weekday of a day, "Monday" ... "Sunday" (1970-01-01 was a Thursday).
    package static func weekday(_ day: Int32) -> String {
        let names = ["Thursday", "Friday", "Saturday", "Sunday", "Monday", "Tuesday", "Wednesday"]
        return names[Int(Int64(day).modulo(7))]
    }

    private static func daysIn(month m: Int64, year y: Int64) -> Int64 {
        switch m {
        case 2: return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    package static func days(fromCivil year: Int64, _ month: Int64, _ day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = y.floorDivided(by: 400)
        let yoe = y - era * 400
        let mp = (month + 9) % 12
        let doy = (153 * mp + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    package static func civil(fromDays z0: Int64) -> (Int64, Int64, Int64) {
        let z = z0 + 719_468
        let era = z.floorDivided(by: 146_097)
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (m <= 2 ? 1 : 0), m, d)
    }
}

extension Int64 {
    /// Division rounding toward negative infinity (a moment before 1970 is on the day before).
    package func floorDivided(by d: Int64) -> Int64 {
        let q = self / d
        return (self % d != 0 && (self < 0) != (d < 0)) ? q - 1 : q
    }

    package func modulo(_ d: Int64) -> Int64 {
        let r = self % d
        return r < 0 ? r + d : r
    }
}

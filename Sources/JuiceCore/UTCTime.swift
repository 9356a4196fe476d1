/// Unix seconds as ISO 8601 in UTC: `2026-11-27T09:30:00Z`.
package enum UTCTime {
    package static func text(_ seconds: Int64) -> String {
        let day = seconds.floorDivided(by: 86_400), rest = seconds - day * 86_400
        func pad(_ n: Int64) -> String { n < 10 ? "0\(n)" : "\(n)" }
        return BusinessCalendar.dateText(Int32(clamping: day)) + "T" + pad(rest / 3600) + ":" + pad(rest % 3600 / 60) + ":" + pad(rest % 60) + "Z"
    }
}

import Foundation
import JuiceCore
import JuiceDomain
import JuiceStorage
import JuicePlatform
import JuiceLog
import JuiceLoop
import JuiceServices
import JuiceLine
import JuiceHTTP
import JuiceServer
import JuiceTestSupport
import Testing

/// The shop's day against the built executable, its clock moved by the debug build's
/// `JUICE_TEST_CLOCK` file: day starts, a restart across midnight, a compaction in the middle
/// of a day, a change of time zone, a daylight-saving day, 400 days; the CSVs read back by
/// Python's csv module and matched against STATS and the JSON report.
@Suite(.onOwnThreads) struct ShopDayReportTests {
    /// A server whose clock is a file the test writes, read by a client with its events off.
    typealias ClockedServer = JuiceTestSupport.ClockedServer

    /// Unix seconds of a wall time at a UTC offset in hours.
    static func unix(_ y: Int64, _ m: Int64, _ d: Int64, _ h: Int64, _ min: Int64 = 0, offset: Int64) -> Int64 {
        let days = Int64(BusinessCalendar.day(ofDate: String(format: "%04lld-%02lld-%02lld", y, m, d))!)
        return days * 86_400 + h * 3600 + min * 60 - offset * 3600
    }

    @Test func daysStartAtTheDayStartAndSurviveARestartACompactionAndAZoneChange() throws {
        let s = try ClockedServer(["--timezone", "Asia/Seoul", "--journal-max-bytes", "1024"], at: Self.unix(2026, 11, 25, 3, 30, offset: 9))
        let c = s.client
        #expect(try c.command("ORDER banana").hasPrefix("OK ORDER"), "03:30 belongs to the 24th")
        try s.at(Self.unix(2026, 11, 25, 4, 30, offset: 9))
        #expect(try c.command("ORDER banana 2").hasPrefix("OK ORDER"))
        #expect(try c.command("ORDER strawberry").hasPrefix("ERR OUT_OF_STOCK"))
        try s.at(Self.unix(2026, 11, 25, 13, 5, offset: 9))
        for _ in 0..<24 { #expect(try c.command("RESTOCK kiwi 1").hasPrefix("OK RESTOCK")) }
        #expect(s.server.logShows("compacted the journal"))
        #expect(try c.command("ORDER kiwi").hasPrefix("OK ORDER"))
        var day = try s.report("2026-11-25")
        #expect(day["orders_served"] == 2 && day["orders_refused"] == 1 && day["sold_banana"] == 2 && day["sold_kiwi"] == 1)
        #expect(day["lost_strawberry"] == 1 && day["sold_mango"] == 0)
        #expect(try s.report("2026-11-24")["sold_banana"] == 1)
        #expect(values(try c.command("REPORT"))["orders_served"] == 2, "today is the 25th")

        // Stopped over midnight: 00:30 on the 26th is still the 25th's business day.
        try s.at(Self.unix(2026, 11, 26, 0, 30, offset: 9))
        try s.restart()
        #expect(try s.client.command("ORDER mango").hasPrefix("OK ORDER"))
        day = try s.report("2026-11-25")
        #expect(day["orders_served"] == 3 && day["sold_mango"] == 1 && day["sold_banana"] == 2)
        try s.at(Self.unix(2026, 11, 26, 5, 0, offset: 9))
        #expect(try s.client.command("ORDER mango").hasPrefix("OK ORDER"))
        #expect(try s.report("2026-11-26")["sold_mango"] == 1)

        // Another time zone from now on: the hours already recorded keep their day and hour.
        let before = try HTTPClient.get(port: s.server.httpPort, "/reports/hours.csv?date=2026-11-25").text
        try s.restart(["--timezone", "America/New_York", "--journal-max-bytes", "1024"])
        #expect(try HTTPClient.get(port: s.server.httpPort, "/reports/hours.csv?date=2026-11-25").text == before)
        #expect(try s.report("2026-11-25")["orders_served"] == 3)
        #expect(before.contains("\r\n2026-11-25,04:00,banana,2,0,2026-11-25T04:00:00+09:00,0,8000,0\r\n"), "\(before)")
        // 05:00 in Seoul on the 26th is 15:00 on the 25th in New York.
        #expect(try s.client.command("ORDER banana").hasPrefix("OK ORDER"))
        let hours = try HTTPClient.get(port: s.server.httpPort, "/reports/hours.csv?date=2026-11-25").text
        #expect(hours.contains("\r\n2026-11-25,15:00,banana,1,0,2026-11-25T15:00:00-05:00,0,4000,0\r\n"), "\(hours)")
        s.server.stop()
    }

    /// The CSVs as a spreadsheet or a script reads them (Python's csv module): the sums over
    /// every day equal STATS, and each day's rows equal the JSON report.
    @Test func theCSVsAddUpToStatsAndAgreeWithTheJSON() throws {
        let s = try ClockedServer(["--timezone", "Asia/Seoul"], at: Self.unix(2026, 11, 20, 10, 0, offset: 9))
        let c = s.client
        var rng = SeededRNG(seed: 24)
        let juices = ["banana", "kiwi", "mango", "mango-kiwi", "strawberry", "pineapple", "strawberry-banana"]
        #expect(try c.command("SET banana 1000").hasPrefix("OK SET") && c.command("SET kiwi 1000").hasPrefix("OK SET"))
        for i in 0..<120 {
            try s.at(Self.unix(2026, 11, 20, 10, 0, offset: 9) + Int64(i) * 2 * 3600 + Int64(rng.next() % 3600))
            _ = try c.command("ORDER \(juices[Int(rng.next() % UInt64(juices.count))]) \(1 + rng.next() % 3)")
        }
        let stats = values(try c.command("STATS"))
        let csvPath = s.dir.path + "/days.csv"
        let days = try HTTPClient.get(port: s.server.httpPort, "/reports/days.csv?from=2026-11-19&to=2026-11-30")
        #expect(days.status == 200 && days.header("Content-Type") == "text/csv; charset=utf-8; header=present")
        #expect(days.header("Content-Disposition") == "attachment; filename=\"juice-days-2026-11-19-to-2026-11-30.csv\"")
        try Data(days.body).write(to: URL(fileURLWithPath: csvPath))
        let script = """
        import csv, sys, json
        with open(sys.argv[1], newline="", encoding="utf-8") as f:
            rows = list(csv.DictReader(f))
        assert rows and list(rows[0].keys())[:4] == ["date", "juice", "sold", "lost"], rows[0].keys()
        assert list(rows[0].keys())[4:] == ["voided", "takings", "lost_revenue"], rows[0].keys()
        sold, lost, days, money = {}, {}, {}, {}
        for r in rows:
            sold[r["juice"]] = sold.get(r["juice"], 0) + int(r["sold"])
            lost[r["juice"]] = lost.get(r["juice"], 0) + int(r["lost"])
            days.setdefault(r["date"], {})[r["juice"]] = (int(r["sold"]), int(r["lost"]))
            day = money.setdefault(r["date"], [0, 0])
            day[0] += int(r["takings"])
            day[1] += int(r["lost_revenue"])
        print(json.dumps({"sold": sold, "lost": lost, "days": days, "money": money}))
        """
        let (status, output) = try Executables.run("/usr/bin/env", ["python3", "-c", script, csvPath])
        #expect(status == 0, "\(output)")
        let read = try #require(try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any])
        let sold = try #require(read["sold"] as? [String: Int]), lost = try #require(read["lost"] as? [String: Int])
        for juice in juices {
            #expect(sold[juice] == stats["sold_\(juice)"], "\(juice)")
            #expect(lost[juice] == stats["lost_\(juice)"], "\(juice)")
        }
        #expect((read["days"] as? [String: Any])?.count == 12)
        // Each day's money in the CSV adds up to that day's REPORT (issue 33).
        let money = try #require(read["money"] as? [String: [Int]])
        for (date, sums) in money {
            let report = try s.report(date)
            #expect(sums == [report["takings"] ?? -1, report["lost_revenue"] ?? -1], "\(date)")
        }
        #expect(money.values.contains { $0[0] > 0 }, "money was taken")
        // Each day's JSON report says what its CSV rows say.
        let perDay = try #require(read["days"] as? [String: [String: [Int]]])
        for (date, rows) in perDay {
            let json = try HTTPClient.get(port: s.server.httpPort, "/reports/day?date=\(date)").json()
            let list = try #require(json["juices"] as? [[String: Any]])
            for entry in list {
                let juice = try #require(entry["juice"] as? String)
                #expect(rows[juice] == [entry["sold"] as? Int ?? -1, entry["lost"] as? Int ?? -1], "\(date) \(juice)")
            }
        }
        // The hours of a day add up to that day.
        let hours = try HTTPClient.get(port: s.server.httpPort, "/reports/hours.csv?date=2026-11-21")
        let hoursPath = s.dir.path + "/hours.csv"
        try Data(hours.body).write(to: URL(fileURLWithPath: hoursPath))
        let sum = """
        import csv, sys
        with open(sys.argv[1], newline="", encoding="utf-8") as f:
            rows = list(csv.DictReader(f))
        assert list(rows[0].keys())[:5] == ["date", "hour", "juice", "sold", "lost"]
        print(sum(int(r["sold"]) for r in rows if r["juice"] == "banana"))
        """
        let (_, bananas) = try Executables.run("/usr/bin/env", ["python3", "-c", sum, hoursPath])
        #expect(Int(bananas.trimmingCharacters(in: .whitespacesAndNewlines)) == perDay["2026-11-21"]?["banana"]?[0])
        // A wrong date is a clear refusal.
        #expect(try HTTPClient.get(port: s.server.httpPort, "/reports/day?date=2026-02-30").status == 400)
        #expect(try HTTPClient.get(port: s.server.httpPort, "/reports/days.csv?from=2026-11-30&to=2026-11-01").status == 400)
        s.server.stop()
    }

    @Test func aDaylightSavingDayShowsItsTwentyFiveHours() throws {
        // Saturday 2026-10-31's business day in New York runs to 04:00 Sunday, across the fall back.
        let s = try ClockedServer(["--timezone", "America/New_York", "--initial-stock", "1000"], at: Self.unix(2026, 10, 31, 4, 10, offset: -4))
        var t = Self.unix(2026, 10, 31, 4, 10, offset: -4)
        let end = Self.unix(2026, 11, 1, 4, 0, offset: -5)
        var orders = 0
        while t < end {
            try s.at(t)
            #expect(try s.client.command("ORDER banana").hasPrefix("OK ORDER"))
            orders += 1
            t += 3600
        }
        let csv = try HTTPClient.get(port: s.server.httpPort, "/reports/hours.csv?date=2026-10-31").text
        let rows = csv.split(separator: "\r\n").dropFirst().filter { $0.contains(",banana,") }
        #expect(orders == 25 && rows.count == 25, "\(csv)")
        #expect(rows.filter { $0.hasPrefix("2026-10-31,01:00,") }.count == 2)
        let json = try HTTPClient.get(port: s.server.httpPort, "/reports/day?date=2026-10-31").json()
        #expect((json["hours"] as? [Any])?.count == 25 && json["orders_served"] as? Int == 25)
        s.server.stop()
    }

    @Test func fourHundredDaysAreKeptAndNoMore() throws {
        let first = Self.unix(2025, 1, 1, 12, offset: 9)
        let s = try ClockedServer(["--timezone", "Asia/Seoul", "--initial-stock", "100000", "--journal-max-bytes", "65536"], at: first)
        for d in 0..<401 {
            try s.at(first + Int64(d) * 86_400)
            #expect(try s.client.command("ORDER banana").hasPrefix("OK ORDER"))
        }
        #expect(try s.report("2025-01-01")["sold_banana"] == 0, "401 days later the first one is gone")
        #expect(try s.report("2025-01-02")["sold_banana"] == 1)
        #expect(try s.report("2026-02-05")["sold_banana"] == 1)
        let days = try HTTPClient.get(port: s.server.httpPort, "/reports/days.csv?from=2025-01-02&to=2026-02-05")
        #expect(days.status == 200)
        #expect(days.text.split(separator: "\r\n").filter { $0.contains(",banana,1,") }.count == 400)
        // Compacted and restarted, the 400 days are still there.
        try s.restart()
        #expect(try s.report("2025-01-02")["sold_banana"] == 1 && s.report("2026-02-05")["sold_banana"] == 1)
        s.server.stop()
    }

    /// A zone change in the middle of a UTC hour, to a zone whose hours start when UTC's do:
    /// that hour is then two slots with one start (one per calendar, each keeping its day and
    /// offset). The snapshot held both, and the next start refused it as "a second record" for
    /// that start: a data directory the server wrote and could not open.
    @Test func aZoneChangeInTheMiddleOfAnHourStillOpens() throws {
        let t0 = Self.unix(2026, 11, 25, 10, 5, offset: 0)
        let s = try ShopDayReportTests.ClockedServer(["--timezone", "UTC"], at: t0)
        #expect(try s.client.command("ORDER banana").hasPrefix("OK ORDER"))
        try s.at(t0 + 600)
        try s.restart(["--timezone", "Asia/Seoul"])
        #expect(try s.client.command("ORDER kiwi").hasPrefix("OK ORDER"))
        try s.at(t0 + 900)
        // Another change writes a snapshot with both hours in it.
        try s.restart(["--timezone", "Asia/Tokyo"])
        #expect(try s.report("2026-11-25")["sold_banana"] == 1)
        try s.restart()
        let hours = try HTTPClient.get(port: s.server.httpPort, "/reports/hours.csv?date=2026-11-25").text
        #expect(hours.contains("\r\n2026-11-25,10:00,banana,1,0,2026-11-25T10:00:00+00:00,0,4000,0\r\n"), "\(hours)")
        #expect(hours.contains("\r\n2026-11-25,19:00,kiwi,1,0,2026-11-25T19:00:00+09:00,0,4500,0\r\n"), "\(hours)")
        s.server.stop()
    }

    /// A clock never set (a board without a battery starts at 1970) puts changes in the
    /// business day 1969-12-31 (before the day start) or in an hour starting before 1970 (a
    /// +05:45 zone); the last hours of 9999 fall in the year 10000. The snapshot wrote such
    /// hours and the next start refused them. Those moments now count in STATS, in no day. A
    /// test clock past 9999 (10^15) trapped the server: it is held to the times a record carries.
    @Test func aClockAtTheEdgesOfTimeWritesASnapshotThatOpens() throws {
        for (time, zone) in [(Int64(3600), "UTC"), (100, "Asia/Kathmandu"), (253_402_300_000, "Pacific/Kiritimati"),
                             (1_000_000_000_000_000, "UTC")] {
            let s = try ClockedServer(["--timezone", zone, "--journal-max-bytes", "1024"], at: time)
            for _ in 0..<30 { #expect(try s.client.command("RESTOCK kiwi 1").hasPrefix("OK RESTOCK")) }
            #expect(s.server.logShows("compacted the journal"))
            try s.restart()
            #expect(values(try s.client.command("STATS"))["seq"] == 30, "\(zone)")
            s.server.stop()
        }
    }
}

extension ClockedServer {
    /// A server whose clock is a file the test writes, started with `extra` and read by a
    /// client with its events off.
    convenience init(_ extra: [String], at time: Int64) throws {
        try self.init([], extra, at: time) { server in
            let client = try server.client()
            _ = try client.command("EVENTS OFF")
            return client
        }
    }

    func report(_ date: String) throws -> [String: Int] {
        let reply = try client.command("REPORT \(date)")
        #expect(reply.hasPrefix("OK REPORT date=\(date) "), "\(reply)")
        return values(reply)
    }
}

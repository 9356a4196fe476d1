import Foundation
import JuiceTestSupport
import Testing
@testable import juice_bench

/// `juice-bench burst`: its options, and a small run against a real server whose figures must
/// agree with what was sent. Never its speed.
@Suite(.onOwnThreads) struct BurstTests {
    @Test func burstFlagsAndDefaults() throws {
        guard case .burst(let d) = try parseSubcommand(["burst"]) else { Issue.record("not burst"); return }
        #expect(d.attackers == 200 && d.burstBytes == 65536 && d.attack == "STATS" && d.httpPort == 0)
        #expect(d.probe == "PING" && d.greetingLines == 1 && d.replySkip == ["EVENT"] && d.probeGapMilliseconds == 1)
        // Whole lines only: 9,362 'STATS\r\n' fit in 64 KiB.
        #expect(d.burst.count == 9362 * 7)

        guard case .burst(let o) = try parseSubcommand(["burst", "--attackers", "3", "--burst=100", "--attack", "PING",
                                                     "--greeting-lines", "0", "--reply-skip", "+OK", "--probe-gap-ms", "0"]) else {
            Issue.record("not burst")
            return
        }
        #expect(o.attackers == 3 && o.attack == "PING" && o.greetingLines == 0 && o.replySkip == ["+OK"] && o.probeGapMilliseconds == 0)
        #expect(o.burst == Array(String(repeating: "PING\r\n", count: 16).utf8))

        guard case .burst(let h) = try parseSubcommand(["burst", "--http-port", "8080", "--burst", "1"]) else { Issue.record("not burst"); return }
        #expect(h.burst == Array("GET /state HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".utf8), "at least one request")
    }

    @Test func reportAttacksCarryTheManagerToken() throws {
        guard case .burst(let line) = try parseSubcommand(["burst", "--attack", "REPORT 2026-06-01", "--attack-auth", "t0k", "--burst", "1",
                                                         "--healthz-port", "8080"]) else { Issue.record("not burst"); return }
        #expect(line.burst == Array("AUTH t0k\r\nREPORT 2026-06-01\r\n".utf8) && line.healthzPort == 8080)
        guard case .burst(let http) = try parseSubcommand(["burst", "--http-port", "8080", "--attack-path", "/reports/day", "--attack-auth", "t0k",
                                                         "--burst", "1"]) else { Issue.record("not burst"); return }
        #expect(http.burst == Array("GET /reports/day HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer t0k\r\n\r\n".utf8))
        for arguments in [["burst", "--attack-path", "reports"], ["burst", "--attack-auth", "a b"]] {
            #expect(throws: BenchError.self, "\(arguments)") { try parseSubcommand(arguments) }
        }
    }

    @Test func badBurstFlagsAreUsageErrors() {
        for arguments in [["burst", "--attackers", "0"], ["burst", "--attack", "PING\r\nQUIT"], ["burst", "--burst", "x"]] {
            #expect(throws: BenchError.self, "\(arguments)") { try parseSubcommand(arguments) }
        }
    }

    /// Three attackers against a real server on both sides: every byte of their bursts is
    /// written, the probe is answered, and the figures are ordered.
    @Test(arguments: [false, true])
    func aBurstRunAgainstARealServer(http: Bool) throws {
        let server = try ExecutableServer(["--in-memory"])
        var arguments = ["burst", "--port", "\(server.port)", "--attackers", "3", "--burst", "8192", "--duration", "1",
                         "--drain", "\(testDeadline)", "--json", "--no-progress"]
        if http { arguments += ["--http-port", "\(server.httpPort)"] }
        arguments += ["--healthz-port", "\(server.httpPort)"]
        let (status, output) = try Executables.run(Executables.path("juice-bench"), arguments)
        #expect(status == 0, "\(output)")
        let line = output.split(separator: "\n").first { $0.hasPrefix("{") }.map(String.init) ?? ""
        let o = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "\(output)")
        #expect(o["mode"] as? String == "burst" && o["attackers"] as? Int == 3)
        #expect(o["attack"] as? String == (http ? "GET /state" : "STATS"))
        let burst = o["burst_bytes"] as? Int ?? -1
        #expect(o["attack_bytes_written"] as? Int == 3 * burst && o["attackers_closed"] as? Int == 0, "\(output)")
        #expect((o["probes"] as? Int ?? 0) > 0 && o["probe_unanswered"] as? Bool == false, "\(output)")
        let probe = try #require(o["probe_us"] as? [String: Double], "\(output)")
        let (p50, p99, max) = (probe["p50"] ?? -1, probe["p99"] ?? -1, probe["max"] ?? -1)
        #expect(p50 > 0 && p50 <= p99 && p99 <= max, "\(probe)")
        let healthz = try #require(o["healthz_us"] as? [String: Double], "\(output)")
        #expect((healthz["count"] ?? 0) > 0 && (healthz["p50"] ?? -1) > 0 && healthz["p50"]! <= healthz["max"]!, "\(healthz)")
        // The server is still there for everyone afterwards.
        #expect(try server.client().command("PING") == "OK PONG")
    }

    /// `history` writes a store the server reads as its own: the days and their sales are there
    /// for REPORT and the CSVs.
    @Test func aHistoryOf430DaysServesTheReports() throws {
        let dir = TemporaryDirectory()
        let data = dir.path + "/data"
        let (status, output) = try Executables.run(Executables.path("juice-bench"),
                                                   ["history", "--data", data, "--days", "430", "--last", "2026-06-01"])
        #expect(status == 0 && output.contains("430 days (2025-03-29 to 2026-06-01)"), "\(output)")
        let server = try ExecutableServer(["--data", data, "--timezone", "UTC"])
        let client = try server.client()
        let report = try client.command("REPORT 2026-06-01")
        #expect(report.hasPrefix("OK REPORT date=2026-06-01 orders_served=") && !report.contains("orders_served=0 "), "\(report)")
        let csv = try HTTPClient.get(port: server.httpPort, "/reports/days.csv?from=2025-04-28&to=2026-06-01")
        // 400 days kept (SalesHistory.keptDays), a row per day and juice of the standard menu.
        #expect(csv.status == 200 && csv.text.split(separator: "\r\n").count == 1 + 400 * 7, "\(csv.statusLine)")
        // date,juice,sold,lost,voided,takings,lost_revenue: every kept day sold, and took the
        // standard menu's price for each juice.
        let prices = ["strawberry": 6000, "banana": 4000, "kiwi": 4500, "pineapple": 4500, "strawberry-banana": 5500, "mango": 5000, "mango-kiwi": 5500]
        for row in csv.text.split(separator: "\r\n").dropFirst() {
            let cells = row.split(separator: ",", omittingEmptySubsequences: false)
            guard cells.count == 7, let sold = Int(cells[2]), sold > 0, let price = prices[String(cells[1])] else {
                Issue.record("a kept day without sales, or another menu: \(row)")
                break
            }
            #expect(cells[5] == "\(price * sold)", "\(row)")
        }
    }
}

import Foundation
import Testing
@testable import juice_bench

/// The table and the JSON object a run prints, from results built by hand.
@Suite(.onOwnThreads) struct ReportTests {
    /// A latency summary from recorded nanoseconds.
    static func latency(_ nanos: [UInt64]) -> LatencySummary {
        let h = LatencyHistogram()
        for n in nanos { h.record(n) }
        return LatencySummary(h)
    }

    static func ordersResult() -> LoadResult {
        var options = OrdersOptions()
        options.connections = 5
        options.pipeline = 2
        options.common.warmup = 0.5
        return LoadResult(plan: LoadPlan.orders(options), measuredSeconds: 2, replies: 400,
                   errors: ErrorReplies(window: 0, includingWarmup: 0, first: nil), latency: latency(Array(repeating: 100_000, count: 400)), requestsSent: 500, events: 0,
                   fanoutLatency: nil, fanoutCheck: nil, expectedEventsPerWatcher: 0, losses: ConnectionLosses(),
                   unexpectedReplies: 0, interrupted: false,
                   benchCPU: CPUUsage(userSeconds: 0.5, systemSeconds: 0.25))
    }

    static func object(_ json: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any], "not a JSON object: \(json)")
    }

    @Test func theOrdersTableNamesTheRunAndItsFigures() {
        let table = renderTable(Self.ordersResult())
        let lines = table.split(separator: "\n").map(String.init)
        #expect(lines.first == "juice-bench orders -> 127.0.0.1:7878   5 conns x pipeline 2   warm-up 0.5 s, measured 2.00 s")
        #expect(lines.contains("request         ORDER mango-kiwi"))
        #expect(lines.contains("replies         400   (500 requests sent in all, warm-up included)"))
        #expect(lines.contains("replies/s       200.0"))
        #expect(lines.contains("errors          0"))
        #expect(lines.contains("latency (us)    p50 100.0   p90 100.0   p99 100.0   p99.9 100.0   max 100.0   mean 100.0"))
        #expect(lines.contains("bench cpu       38% of one core (user 0.50 s, sys 0.25 s)"))
        #expect(!table.contains("LOST") && !table.contains("events") && !table.contains("INTERRUPTED"))
    }

    @Test func theTableFlagsErrorsLossesAndInterruptions() {
        var result = Self.ordersResult()
        result.errors = ErrorReplies(window: 3, includingWarmup: 5, first: "ERR OUT_OF_STOCK no mango")
        result.losses.count = 2
        result.losses.firstReason = "reset by peer"
        result.unexpectedReplies = 1
        result.interrupted = true
        let table = renderTable(result)
        #expect(table.hasPrefix("juice-bench orders") && table.split(separator: "\n")[0].hasSuffix("(INTERRUPTED)"))
        #expect(table.contains("errors          3   (5 including warm-up)   first: ERR OUT_OF_STOCK no mango"))
        #expect(table.contains("LOST            2 connections closed during the run (reset by peer)"))
        #expect(table.contains("unexpected      1 lines arrived with no request in flight"))
    }

    @Test func theOrdersJSONHasEveryFieldWithItsValue() throws {
        let json = renderJSON(Self.ordersResult())
        // Keys in a fixed order, so runs diff cleanly.
        #expect(json.hasPrefix(#"{"mode":"orders","target":"127.0.0.1:7878","request":"ORDER mango-kiwi","conns":5,"pipeline":2,"#))
        let o = try Self.object(json)
        #expect(o["requests"] as? Int == 400 && o["requests_sent"] as? Int == 500)
        #expect(o["replies_per_s"] as? Double == 200 && o["duration"] as? Double == 2 && o["warmup"] as? Double == 0.5)
        #expect(o["errors"] as? Int == 0 && o["first_error"] is NSNull)
        let latency = try #require(o["latency_us"] as? [String: Any])
        #expect(Set(latency.keys) == ["p50", "p90", "p99", "p999", "max", "mean"])
        #expect(latency["p50"] as? Double == 100)
        #expect(o["events"] as? Int == 0 && o["fanout_us"] is NSNull && o["fanout_check"] is NSNull)
        let cpu = try #require(o["bench_cpu"] as? [String: Any])
        #expect(cpu["user_s"] as? Double == 0.5 && cpu["util"] as? Double == 0.375)
        #expect(o["lost_connections"] as? Int == 0 && o["interrupted"] as? Bool == false)
    }

    @Test func aFanoutReportCarriesTheEventsAndTheVerdict() throws {
        var options = FanoutOptions()
        options.watchers = 4
        var result = Self.ordersResult()
        result.plan = LoadPlan.fanout(options)
        result.events = 40
        result.expectedEventsPerWatcher = 10
        result.fanoutLatency = Self.latency([200_192, 300_000])  // 200,192 ns: a bucket midpoint, so exact
        result.fanoutCheck = .ok
        let table = renderTable(result)
        #expect(table.contains("events          40   (received by all watchers in the window)"))
        #expect(table.contains("events/s        20.0"))
        #expect(table.contains("fan-out (us)    p50 200.2   p99 300.0   max 300.0"))
        #expect(table.contains("fan-out check   ok (4 watchers x 10 events, seq in order, no gap or duplicate)"))
        var o = try Self.object(renderJSON(result))
        #expect(o["watchers"] as? Int == 4 && o["events"] as? Int == 40 && o["fanout_check"] as? String == "ok")
        #expect(o["events_expected_per_watcher"] as? Int == 10 && o["fanout_problem"] == nil)
        #expect(Set((o["fanout_us"] as? [String: Any] ?? [:]).keys) == ["p50", "p99", "max"])

        result.fanoutCheck = .failed("1 of 4 watchers missed events (fewest: 9 of 10)")
        #expect(renderTable(result).contains("fan-out check   FAILED: 1 of 4 watchers missed events (fewest: 9 of 10)"))
        o = try Self.object(renderJSON(result))
        #expect(o["fanout_check"] as? String == "failed")
        #expect(o["fanout_problem"] as? String == "1 of 4 watchers missed events (fewest: 9 of 10)")
    }

    @Test func anEventsReportNamesTheStreamsAndWhereTheyWent() throws {
        var options = EventsOptions()
        options.fanout.watchers = 4
        options.httpPort = 7999
        var result = Self.ordersResult()
        result.plan = LoadPlan.events(options)
        result.events = 40
        result.expectedEventsPerWatcher = 10
        result.fanoutLatency = Self.latency([200_192])
        result.fanoutCheck = .ok
        let table = renderTable(result)
        #expect(table.hasPrefix("juice-bench events -> 127.0.0.1:7878   1 conns x pipeline 1, 4 streams on 127.0.0.1:7999   warm-up"))
        #expect(table.contains("events          40   (received by all streams in the window)"))
        #expect(table.contains("fan-out check   ok (4 streams x 10 events, seq in order, no gap or duplicate)"))
        let o = try Self.object(renderJSON(result))
        #expect(o["mode"] as? String == "events" && o["watchers"] as? Int == 4 && o["watcher_target"] as? String == "127.0.0.1:7999")
        #expect(o["events_per_s"] as? Double == 20 && o["fanout_check"] as? String == "ok")
        #expect(try Self.object(renderJSON(Self.ordersResult()))["watcher_target"] == nil)
    }

    @Test func anIdleStreamsReportSaysStreamsAndTheHTTPTarget() throws {
        var options = IdleOptions()
        options.pid = 4242
        options.eventStreams = true
        options.httpPort = 7999
        let result = IdleResult(options: options, rss: RSSReadings(before: 10_000, connected: 11_000, after: 11_000), heldSeconds: 2,
                                losses: ConnectionLosses(), interrupted: false)
        #expect(renderTable(result).hasPrefix("juice-bench idle -> 127.0.0.1:7999   1000 idle event streams held 2.0 s"))
        let o = try Self.object(renderJSON(result))
        #expect(o["streams"] as? Bool == true && o["target"] as? String == "127.0.0.1:7999" && o["rss_per_conn_bytes"] as? Double == 1024)
    }

    @Test func theIdleReportDividesTheGrowthByTheConnections() throws {
        var options = IdleOptions()
        options.pid = 4242
        let result = IdleResult(options: options, rss: RSSReadings(before: 10_000, connected: 14_000, after: 15_000), heldSeconds: 2,
                                losses: ConnectionLosses(), interrupted: false)
        let table = renderTable(result)
        #expect(table.hasPrefix("juice-bench idle -> 127.0.0.1:7878   1000 idle connections held 2.0 s   server pid 4242"))
        #expect(table.contains("per connection  5.00 KiB"))
        #expect(table.contains("RSS / N         15.00 KiB"))
        let o = try Self.object(renderJSON(result))
        #expect(o["rss_per_conn_bytes"] as? Double == 5120 && o["rss_total_per_conn_bytes"] as? Double == 15360)
        #expect(o["pid"] as? Int == 4242 && o["rss_connected_kb"] as? Int == 14_000)
    }

    /// The server's figures: per reply, with the whole-window totals, and a row per thread name.
    static func measuredServer() -> ServerFigures {
        let start = ServerSample(userTicks: 0, systemTicks: 0, threads: [
            7: ThreadCounters(name: "juice-server", voluntary: 0, involuntary: 0, runNanos: 0),
            8: ThreadCounters(name: "-qos.overcommit", voluntary: 0, involuntary: 0, runNanos: 0)])
        let end = ServerSample(userTicks: 30, systemTicks: 10, threads: [
            7: ThreadCounters(name: "juice-server", voluntary: 0, involuntary: 0, runNanos: 0),
            8: ThreadCounters(name: "-qos.overcommit", voluntary: 150, involuntary: 50, runNanos: 390_000_000)])
        return .measured(ServerUsage(pid: 4242, from: start, to: end, ticksPerSecond: 100), foundBy: "listening on port 7878")
    }

    @Test func theServersCPUAndSwitchesPerReplyAreReported() throws {
        var result = Self.ordersResult()
        result.server = Self.measuredServer()
        let table = renderTable(result)
        #expect(table.contains("server cpu      1000.00 us/reply   (user 0.30 s, sys 0.10 s = 20% of one core; pid 4242, listening on port 7878)"), "\(table)")
        #expect(table.contains("server switch   0.500 /reply   (voluntary 150, involuntary 50; 2 threads)"), "\(table)")
        #expect(table.contains("  thread        -qos.overcommit x1 (1 ran): 975.00 us/reply, 0.500 switches/reply (voluntary 150, involuntary 50)"))
        #expect(table.contains("  thread        juice-server x1 (0 ran): 0.00 us/reply, 0.000 switches/reply"))
        let o = try Self.object(renderJSON(result))
        let server = try #require(o["server"] as? [String: Any], "\(o)")
        #expect(server["pid"] as? Int == 4242 && server["found_by"] as? String == "listening on port 7878")
        #expect(server["cpu_us_per_reply"] as? Double == 1000 && server["switches_per_reply"] as? Double == 0.5)
        #expect(server["user_s"] as? Double == 0.3 && server["sys_s"] as? Double == 0.1 && server["cpu_us_per_event"] == nil)
        #expect(server["voluntary_switches"] as? Int == 150 && server["threads_ended"] as? Int == 0)
        let threads = try #require(server["threads"] as? [[String: Any]])
        #expect(threads.map { $0["name"] as? String } == ["-qos.overcommit", "juice-server"])
        #expect(threads[0]["cpu_us_per_reply"] as? Double == 975 && threads[0]["ran"] as? Int == 1)

        // A fan-out run also divides by the events delivered.
        result.plan.watchers = 4
        result.events = 4000
        #expect(renderTable(result).contains("server cpu      1000.00 us/reply, 100.000 us/event"))
        #expect(try Self.object(renderJSON(result))["server"].flatMap { ($0 as? [String: Any])?["cpu_us_per_event"] as? Double } == 100)
    }

    @Test func missingServerFiguresSayWhy() throws {
        var result = Self.ordersResult()
        result.server = .missing("no listening socket for port 7878 in /proc/net/tcp; give --server-pid")
        #expect(renderTable(result).contains("server cpu      unknown: no listening socket for port 7878"))
        let o = try Self.object(renderJSON(result))
        #expect(o["server"] is NSNull && (o["server_missing"] as? String)?.hasPrefix("no listening socket") == true)
        // No reply in the window: nothing to divide by.
        result.server = Self.measuredServer()
        result.replies = 0
        #expect(renderTable(result).contains("server cpu      - us/reply"))
        #expect((try Self.object(renderJSON(result))["server"] as? [String: Any])?["cpu_us_per_reply"] is NSNull)
    }

    @Test func jsonStringsAreEscaped() throws {
        let text = JSON.object([("s", .string("a\"b\\c\nd\te\u{1}f 망고")), ("n", .number(.nan, decimals: 1)),
                                ("x", .number(1.25, decimals: 1)), ("b", .bool(true)), ("z", .null)]).text
        #expect(text == #"{"s":"a\"b\\c\u000ad\u0009e\u0001f 망고","n":null,"x":1.3,"b":true,"z":null}"#)
        let o = try Self.object(text)
        #expect(o["s"] as? String == "a\"b\\c\nd\te\u{1}f 망고")
    }

    @Test(arguments: [(3.14159, 2, "3.14"), (-0.05, 1, "-0.1"), (2, 0, "2"), (0.999, 2, "1.00"), (-0.004, 2, "0.00"),
                      (1234.5, 1, "1234.5"), (.infinity, 1, "0"), (0.05, 3, "0.050")] as [(Double, Int, String)])
    func formatFixedRoundsHalfAwayFromZero(value: Double, decimals: Int, expected: String) {
        #expect(formatFixed(value, decimals) == expected)
    }

    @Test func theExitStatusSaysWhetherTheRunCanBeTrusted() {
        var result = Self.ordersResult()
        #expect(report(result, json: true) == 0)
        result.interrupted = true
        #expect(report(result, json: true) == 130)
        result.losses.count = 1
        #expect(report(result, json: true) == 1)
        result.losses.count = 0
        result.interrupted = false
        result.plan.watchers = 2
        result.fanoutCheck = .failed("1 of 2 watchers missed events")
        #expect(report(result, json: true) == 1)
    }
}

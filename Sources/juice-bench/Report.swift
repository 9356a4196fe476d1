/// Turns results into the human table (stdout) or one JSON object (stdout, with --json).
/// Pure string building; main.swift decides where it goes.

private func micros(_ value: Double) -> String { formatFixed(value, 1) }

private func latencyLine(_ summary: LatencySummary, full: Bool) -> String {
    var parts = ["p50 \(micros(summary.p50))"]
    if full { parts.append("p90 \(micros(summary.p90))") }
    parts.append("p99 \(micros(summary.p99))")
    if full { parts.append("p99.9 \(micros(summary.p999))") }
    parts.append("max \(micros(summary.max))")
    return parts.joined(separator: "   ")
}

private func row(_ name: String, _ value: String) -> String {
    name.padding(16) + value
}

extension String {
    /// A table's name column, as every report prints it: `width` wide, and at least one space.
    func padding(_ width: Int) -> String {
        count >= width ? self + " " : self + String(repeating: " ", count: width - count)
    }
}

func renderTable(_ result: LoadResult) -> String {
    let plan = result.plan
    var lines = ["juice-bench \(plan.mode) -> \(plan.common.endpoint)   \(plan.connections) conns x pipeline \(plan.pipeline)"
                 + (plan.watchers > 0 ? ", \(plan.watchers) \(plan.watcherNoun)" : "")
                 + (plan.watcherEndpoint.map { " on \($0)" } ?? "")
                 + "   warm-up \(formatFixed(plan.common.warmup, 1)) s, measured \(formatFixed(result.measuredSeconds, 2)) s"
                 + (result.interrupted ? "  (INTERRUPTED)" : "")]
    if case .httpPost(let path) = plan.requestFraming {
        lines.append(row("request", "POST \(path) (HTTP/1.1 keep-alive)  " + plan.requests.joined(separator: " | ")))
        lines.append(row("reconnects", "\(result.reconnects)   (the server ended keep-alive: Connection: close)"))
    } else {
        lines.append(row("request", plan.requests.joined(separator: " | ")))
    }
    lines.append(row("replies", "\(result.replies)   (\(result.requestsSent) requests sent in all, warm-up included)"))
    lines.append(row("replies/s", formatFixed(result.repliesPerSecond, 1)))
    var errors = "\(result.errors.window)"
    if result.errors.includingWarmup != result.errors.window { errors += "   (\(result.errors.includingWarmup) including warm-up)" }
    if let first = result.errors.first { errors += "   first: \(first)" }
    lines.append(row("errors", errors))
    lines.append(row("latency (us)", latencyLine(result.latency, full: true) + "   mean \(micros(result.latency.mean))"))
    if plan.watchers > 0 {
        lines.append(row("events", "\(result.events)   (received by all \(plan.watcherNoun) in the window)"))
        lines.append(row("events/s", formatFixed(result.eventsPerSecond, 1)))
        if let fanout = result.fanoutLatency {
            lines.append(row("fan-out (us)", latencyLine(fanout, full: false)))
        }
        if let check = result.fanoutCheck {
            switch check {
            case .ok:
                lines.append(row("fan-out check", "ok (\(plan.watchers) \(plan.watcherNoun) x \(result.expectedEventsPerWatcher) events, "
                                 + (plan.checkSequence ? "seq in order, no gap or duplicate)" : "counts match)")))
            case .failed(let why):
                lines.append(row("fan-out check", "FAILED: \(why)"))
            }
        }
    }
    for (name, value) in serverRows(result) { lines.append(row(name, value)) }
    if let cpu = result.benchCPU {
        lines.append(row("bench cpu", "\(formatFixed(cpu.utilization(over: result.measuredSeconds) * 100, 0))% of one core "
                         + "(user \(formatFixed(cpu.userSeconds, 2)) s, sys \(formatFixed(cpu.systemSeconds, 2)) s)"))
    }
    if result.losses.count > 0 {
        lines.append(row("LOST", "\(result.losses.count) connections closed during the run (\(result.losses.firstReason ?? "?"))"))
    }
    if result.unexpectedReplies > 0 {
        lines.append(row("unexpected", "\(result.unexpectedReplies) lines arrived with no request in flight (wrong --reply-skip?)"))
    }
    return lines.joined(separator: "\n")
}

private func latencyJSON(_ summary: LatencySummary, full: Bool) -> JSON {
    var members: [(String, JSON)] = [("p50", .number(summary.p50, decimals: 1))]
    if full { members.append(("p90", .number(summary.p90, decimals: 1))) }
    members.append(("p99", .number(summary.p99, decimals: 1)))
    if full { members.append(("p999", .number(summary.p999, decimals: 1))) }
    members.append(("max", .number(summary.max, decimals: 1)))
    if full { members.append(("mean", .number(summary.mean, decimals: 1))) }
    return .object(members)
}

func renderJSON(_ result: LoadResult) -> String {
    let plan = result.plan
    var members: [(String, JSON)] = [
        ("mode", .string(plan.mode)),
        ("target", .string(plan.common.endpoint.description)),
        ("request", .string(plan.requests.joined(separator: " | "))),
        ("conns", .int(plan.connections)),
        ("pipeline", .int(plan.pipeline)),
        ("watchers", .int(plan.watchers)),
        ("warmup", .number(plan.common.warmup, decimals: 3)),
        ("duration", .number(result.measuredSeconds, decimals: 3)),
        ("requests", .int(result.replies)),
        ("requests_sent", .int(result.requestsSent)),
        ("replies_per_s", .number(result.repliesPerSecond, decimals: 1)),
        ("errors", .int(result.errors.window)),
        ("errors_total", .int(result.errors.includingWarmup)),
        ("first_error", result.errors.first.map { .string($0) } ?? .null),
        ("latency_us", latencyJSON(result.latency, full: true)),
    ]
    if case .httpPost(let path) = plan.requestFraming {
        members.append(("http_post", .string(path)))
        members.append(("reconnects", .int(result.reconnects)))
    }
    if let watcherEndpoint = plan.watcherEndpoint {
        members.append(("watcher_target", .string(watcherEndpoint.description)))
    }
    if plan.watchers > 0 {
        members.append(("events", .int(result.events)))
        members.append(("events_per_s", .number(result.eventsPerSecond, decimals: 1)))
        members.append(("fanout_us", result.fanoutLatency.map { latencyJSON($0, full: false) } ?? .null))
        members.append(("fanout_check", result.fanoutCheck.map { .string($0.word) } ?? .null))
        if case .failed(let why) = result.fanoutCheck {
            members.append(("fanout_problem", .string(why)))
        }
        members.append(("events_expected_per_watcher", .int(result.expectedEventsPerWatcher)))
    } else {
        members.append(("events", .int(0)))
        members.append(("events_per_s", .number(0, decimals: 1)))
        members.append(("fanout_us", .null))
        members.append(("fanout_check", .null))
    }
    members.append(("bench_cpu", result.benchCPU.map { cpu in
        .object([("user_s", .number(cpu.userSeconds, decimals: 3)), ("sys_s", .number(cpu.systemSeconds, decimals: 3)),
                 ("util", .number(cpu.utilization(over: result.measuredSeconds), decimals: 3))])
    } ?? .null))
    members += serverJSON(result)
    members.append(("lost_connections", .int(result.losses.count)))
    members.append(("interrupted", .bool(result.interrupted)))
    return JSON.object(members).text
}

func renderTable(_ result: IdleResult) -> String {
    let options = result.options
    let kib = { (bytes: Double) in formatFixed(bytes / 1024, 2) + " KiB" }
    return [
        "juice-bench idle -> \(result.target)   \(result.connections) idle \(options.eventStreams ? "event streams" : "connections") held "
            + "\(formatFixed(result.heldSeconds, 1)) s   server pid \(options.pid)" + (result.interrupted ? "  (INTERRUPTED)" : ""),
        row("RSS before", "\(result.rss.before) kB"),
        row("RSS connected", "\(result.rss.connected) kB   (as soon as all were accepted)"),
        row("RSS after", "\(result.rss.after) kB   (after holding)"),
        row("per connection", "\(kib(result.bytesPerConnectionAdded))   = (after - before) / N   <- the cost of one connection"),
        row("RSS / N", "\(kib(result.bytesPerConnectionTotal))   = after / N (includes the server's baseline)"),
    ].joined(separator: "\n") + (result.losses.count > 0 ? "\n" + row("LOST", "\(result.losses.count) connections closed by the server") : "")
}

func renderJSON(_ result: IdleResult) -> String {
    JSON.object([
        ("mode", .string("idle")),
        ("target", .string(result.target.description)),
        ("conns", .int(result.connections)),
        ("streams", .bool(result.options.eventStreams)),
        ("pid", .int(Int(result.options.pid))),
        ("duration", .number(result.heldSeconds, decimals: 3)),
        ("rss_before_kb", .int(result.rss.before)),
        ("rss_connected_kb", .int(result.rss.connected)),
        ("rss_after_kb", .int(result.rss.after)),
        ("rss_per_conn_bytes", .number(result.bytesPerConnectionAdded, decimals: 0)),
        ("rss_total_per_conn_bytes", .number(result.bytesPerConnectionTotal, decimals: 0)),
        ("lost_connections", .int(result.losses.count)),
        ("interrupted", .bool(result.interrupted)),
    ]).text
}

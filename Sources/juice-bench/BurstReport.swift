/// `burst` results: the human table (stdout) or one JSON object (with --json).

extension BurstResult {
    /// What the attackers sent, in words.
    var attackDescription: String {
        let o = options
        let requests = o.burst.count / Array(o.attackRequest.utf8).count
        let what = o.httpPort > 0 ? "pipelined GET \(o.attackPath) on HTTP port \(o.httpPort)" : "'\(o.attack)' lines"
        return "\(o.attackers) attackers x \(requests) \(what) (\(o.burst.count) bytes each), never read"
    }
}

/// Microseconds as the table's milliseconds.
private func ms(_ micros: Double) -> String { formatFixed(micros / 1000, 2) }

/// A probe's round trips in the table: the line probe's and `/healthz`'s read alike.
private func roundTrips(_ s: LatencySummary) -> String {
    "p50 \(ms(s.p50))   p99 \(ms(s.p99))   max \(ms(s.max))   mean \(ms(s.mean))"
}

/// A probe still waiting at the end (`who` waited), or no line.
private func unansweredLine(_ who: String, _ micros: Double?) -> [String] {
    micros.map { ["UNANSWERED".padding(16) + "\(who) was still waiting after \(ms($0)) ms (window and drain)"] } ?? []
}

/// A probe's round trips in the JSON (microseconds). A probe never answered is the worst wait
/// there was: it is the max.
private func roundTripsJSON(_ figures: ProbeFigures) -> [(String, JSON)] {
    let s = figures.latency
    return [("p50", .number(s.p50, decimals: 1)), ("p99", .number(s.p99, decimals: 1)),
            ("max", .number(Swift.max(s.max, figures.unansweredMicros ?? 0), decimals: 1)), ("mean", .number(s.mean, decimals: 1))]
}

func renderTable(_ result: BurstResult) -> String {
    let o = result.options
    let p = result.probe.latency
    var lines = ["juice-bench burst -> \(o.common.endpoint)   probe '\(o.probe)' every \(o.probeGapMilliseconds) ms after its reply"
                 + "   measured \(formatFixed(result.measuredSeconds, 2)) s" + (result.interrupted ? "  (INTERRUPTED)" : "")]
    lines.append("attack".padding(16) + result.attackDescription)
    lines.append("probes".padding(16) + "\(p.count) answered")
    lines.append("probe (ms)".padding(16) + roundTrips(p) + "   (the slowest sent at \(formatFixed(result.probe.slowestSentAtSeconds, 3)) s)")
    lines += unansweredLine("a probe", result.probe.unansweredMicros)
    if let h = result.healthz {
        lines.append("/healthz (ms)".padding(16) + roundTrips(h.latency) + "   (\(h.latency.count) answered)")
        lines += unansweredLine("/healthz", h.unansweredMicros)
    }
    let written = result.attack.writtenSeconds.map { "all written after \(formatFixed($0, 3)) s" } ?? "not all written by the end"
    lines.append("attack bytes".padding(16) + "\(result.attack.bytesWritten) (\(written))")
    if result.attack.closed > 0 {
        lines.append("closed".padding(16) + "\(result.attack.closed) attackers were closed by the server while writing")
    }
    return lines.joined(separator: "\n")
}

func renderJSON(_ result: BurstResult) -> String {
    let o = result.options
    let p = result.probe
    return JSON.object([
        ("mode", .string("burst")),
        ("target", .string(o.common.endpoint.description)),
        ("attack", .string(o.httpPort > 0 ? "GET \(o.attackPath)" : o.attack)),
        ("attack_http_port", o.httpPort > 0 ? .int(o.httpPort) : .null),
        ("attackers", .int(o.attackers)),
        ("burst_bytes", .int(o.burst.count)),
        ("probe", .string(o.probe)),
        ("duration", .number(result.measuredSeconds, decimals: 3)),
        ("probes", .int(Int(p.latency.count))),
        ("probe_us", .object(roundTripsJSON(p))),
        ("probe_unanswered", .bool(p.unansweredMicros != nil)),
        ("healthz_us", result.healthz.map { h in .object(roundTripsJSON(h) + [("count", .int(Int(h.latency.count)))]) } ?? .null),
        ("slowest_sent_at_s", .number(result.probe.slowestSentAtSeconds, decimals: 3)),
        ("attack_bytes_written", .int(result.attack.bytesWritten)),
        ("attack_written_s", result.attack.writtenSeconds.map { .number($0, decimals: 3) } ?? .null),
        ("attackers_closed", .int(result.attack.closed)),
        ("interrupted", .bool(result.interrupted)),
    ]).text
}

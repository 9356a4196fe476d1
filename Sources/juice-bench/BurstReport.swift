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

func renderTable(_ result: BurstResult) -> String {
    let o = result.options
    let p = result.probe
    func ms(_ micros: Double) -> String { formatFixed(micros / 1000, 2) }
    var lines = ["juice-bench burst -> \(o.common.endpoint)   probe '\(o.probe)' every \(o.probeGapMilliseconds) ms after its reply"
                 + "   measured \(formatFixed(result.measuredSeconds, 2)) s" + (result.interrupted ? "  (INTERRUPTED)" : "")]
    lines.append("attack".padding(16) + result.attackDescription)
    lines.append("probes".padding(16) + "\(p.count) answered")
    lines.append("probe (ms)".padding(16) + "p50 \(ms(p.p50))   p99 \(ms(p.p99))   max \(ms(p.max))   mean \(ms(p.mean))"
                 + "   (the slowest sent at \(formatFixed(result.slowestSentAtSeconds, 3)) s)")
    if let unanswered = result.unansweredMicros {
        lines.append("UNANSWERED".padding(16) + "a probe was still waiting after \(ms(unanswered)) ms (window and drain)")
    }
    if let h = result.healthz {
        lines.append("/healthz (ms)".padding(16) + "p50 \(ms(h.p50))   p99 \(ms(h.p99))   max \(ms(h.max))   mean \(ms(h.mean))   (\(h.count) answered)")
    }
    if let unanswered = result.healthzUnansweredMicros {
        lines.append("UNANSWERED".padding(16) + "/healthz was still waiting after \(ms(unanswered)) ms (window and drain)")
    }
    let written = result.attackWrittenSeconds.map { "all written after \(formatFixed($0, 3)) s" } ?? "not all written by the end"
    lines.append("attack bytes".padding(16) + "\(result.attackBytesWritten) (\(written))")
    if result.attackersClosed > 0 {
        lines.append("closed".padding(16) + "\(result.attackersClosed) attackers were closed by the server while writing")
    }
    return lines.joined(separator: "\n")
}

func renderJSON(_ result: BurstResult) -> String {
    let o = result.options
    let p = result.probe
    // A probe never answered is the worst wait there was: it is the max.
    let max = Swift.max(p.max, result.unansweredMicros ?? 0)
    return JSON.object([
        ("mode", .string("burst")),
        ("target", .string(o.common.endpoint.description)),
        ("attack", .string(o.httpPort > 0 ? "GET \(o.attackPath)" : o.attack)),
        ("attack_http_port", o.httpPort > 0 ? .int(o.httpPort) : .null),
        ("attackers", .int(o.attackers)),
        ("burst_bytes", .int(o.burst.count)),
        ("probe", .string(o.probe)),
        ("duration", .number(result.measuredSeconds, decimals: 3)),
        ("probes", .int(Int(p.count))),
        ("probe_us", .object([("p50", .number(p.p50, decimals: 1)), ("p99", .number(p.p99, decimals: 1)),
                              ("max", .number(max, decimals: 1)), ("mean", .number(p.mean, decimals: 1))])),
        ("probe_unanswered", .bool(result.unansweredMicros != nil)),
        ("healthz_us", result.healthz.map { h in
            .object([("p50", .number(h.p50, decimals: 1)), ("p99", .number(h.p99, decimals: 1)),
                     ("max", .number(Swift.max(h.max, result.healthzUnansweredMicros ?? 0), decimals: 1)),
                     ("mean", .number(h.mean, decimals: 1)), ("count", .int(Int(h.count)))])
        } ?? .null),
        ("slowest_sent_at_s", .number(result.slowestSentAtSeconds, decimals: 3)),
        ("attack_bytes_written", .int(result.attackBytesWritten)),
        ("attack_written_s", result.attackWrittenSeconds.map { .number($0, decimals: 3) } ?? .null),
        ("attackers_closed", .int(result.attackersClosed)),
        ("interrupted", .bool(result.interrupted)),
    ]).text
}

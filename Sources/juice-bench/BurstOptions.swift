/// `juice-bench burst`: how long a client waits while others pipeline bursts and never read.
struct BurstOptions: SubcommandOptions {
    var common = CommonOptions()
    /// Connections that each write one burst and never read.
    var attackers = 200
    /// Bytes each attacker writes: its line repeated (whole lines, at least one).
    var burstBytes = 64 * 1024
    /// The attackers' line (CRLF appended), on the line port.
    var attack = "STATS"
    /// Nonzero: the attackers pipeline `GET /state` on this HTTP port instead (the probe stays
    /// on `--port`).
    var httpPort = 0
    /// The probe's request line; its reply is the next line not skipped.
    var probe = "PING"
    /// Lines every line connection receives on connect (juice-server: its greeting; Redis: 0).
    var greetingLines = 1
    /// Lines that are not the probe's reply (juice-server's events).
    var replySkip = ["EVENT"]
    /// The probe waits this long after a reply before its next request, so that it samples
    /// the whole run without adding load of its own.
    var probeGapMilliseconds = 1
    /// The path the HTTP attackers pipeline (`--attack-path`): `/state`, or a report.
    var attackPath = "/state"
    /// The manager token the attackers present (`--attack-auth`), for the manager's reads: on
    /// the line port one `AUTH <token>` before the burst, over HTTP a bearer header on each.
    var attackAuth: String?
    /// Nonzero: a second probe asks `GET /healthz` (kept alive) on this HTTP port, timed apart.
    var healthzPort = 0

    /// The attackers' request, as written on the wire (one repetition).
    var attackRequest: String {
        guard httpPort > 0 else { return attack + "\r\n" }
        let auth = attackAuth.map { "Authorization: Bearer \($0)\r\n" } ?? ""
        return "GET \(attackPath) HTTP/1.1\r\nHost: 127.0.0.1\r\n\(auth)\r\n"
    }

    /// What a line attacker sends once before its burst.
    var attackPreamble: String {
        httpPort == 0 ? attackAuth.map { "AUTH \($0)\r\n" } ?? "" : ""
    }

    /// One attacker's whole burst: its preamble, then its request repeated to `burstBytes`.
    var burst: [UInt8] {
        let one = Array(attackRequest.utf8)
        var bytes = Array(attackPreamble.utf8)
        let count = max(1, (burstBytes - bytes.count) / one.count)
        bytes.reserveCapacity(bytes.count + count * one.count)
        for _ in 0..<count { bytes += one }
        return bytes
    }
}

func parseBurst(_ reader: inout ArgumentReader) throws(BenchError) -> BurstOptions {
    var sawSkip = false
    var options: BurstOptions = try reader.parseFlags { flag, options, reader throws(BenchError) in
        switch flag {
        case "--attackers": options.attackers = try reader.int(for: flag, min: 1)
        case "--burst": options.burstBytes = try reader.int(for: flag, min: 1, max: 64 << 20)
        case "--attack": options.attack = try reader.string(for: flag)
        case "--http-port": options.httpPort = try reader.int(for: flag, min: 1, max: 65535)
        case "--probe": options.probe = try reader.string(for: flag)
        case "--greeting-lines": options.greetingLines = try reader.int(for: flag, max: 1000)
        case "--probe-gap-ms": options.probeGapMilliseconds = try reader.int(for: flag, max: 10_000)
        case "--attack-path": options.attackPath = try reader.string(for: flag)
        case "--attack-auth": options.attackAuth = try reader.string(for: flag)
        case "--healthz-port": options.healthzPort = try reader.int(for: flag, min: 1, max: 65535)
        case "--reply-skip":
            if !sawSkip { options.replySkip = [] }
            sawSkip = true
            options.replySkip.append(try reader.string(for: flag))
        default: return false
        }
        return true
    }
    if options.attack.contains("\r") || options.attack.contains("\n") {
        throw reader.usage("--attack is one line (CRLF is appended)")
    }
    for text in [options.attackPath, options.attackAuth ?? ""] where text.contains(where: { $0 == " " || $0.isNewline }) {
        throw reader.usage("--attack-path and --attack-auth take no spaces or line ends: '\(text)'")
    }
    guard options.attackPath.hasPrefix("/") else { throw reader.usage("--attack-path starts with /") }
    // A reply-skip of "" would skip every line: the probe would never be answered.
    options.replySkip.removeAll { $0.isEmpty }
    return options
}

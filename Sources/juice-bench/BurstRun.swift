import JuicePlatform

/// What a burst run measured: the probe's round trips while the attackers' bursts were served.
struct BurstResult {
    var options: BurstOptions
    var probe: ProbeFigures
    /// Seconds from the first attacker's write to the end of the window.
    var measuredSeconds: Double
    var attack: AttackFigures
    /// The `/healthz` probe's (with `--healthz-port`).
    var healthz: ProbeFigures?
    var interrupted: Bool
}

/// What the attackers got written, counted as they write.
struct AttackFigures {
    var bytesWritten = 0
    /// Seconds until every burst was written whole (the server read it, or its socket buffers
    /// took it); nil if some were not by the end.
    var writtenSeconds: Double?
    /// Attackers the server closed (HTTP closes a connection after its 1000th request).
    var closed = 0
}

/// What one probe measured: its round trips, how long a request still unanswered after the
/// window and the drain had waited (us; nil: none was), and when the slowest request was sent
/// (seconds after the first attacker's write; one still unanswered is the slowest).
struct ProbeFigures {
    var latency: LatencySummary
    var unansweredMicros: Double?
    var slowestSentAtSeconds: Double
}

/// One probe's timing, the line probe's and `/healthz`'s alike: the request waiting for its
/// answer (nil: none), when the next may go, the round trips, and when the slowest was sent.
struct ProbeTimer {
    let histogram = LatencyHistogram()
    var sentAt: Nanos?
    var nextAt: Nanos = 0
    /// The first attacker's write, which the figures' moments count from.
    private var start: Nanos = 0
    private var slowestSentAt: Nanos = 0

    /// Probing begins at `now`: the first request may go.
    mutating func begin(at now: Nanos) {
        start = now
        nextAt = now
    }

    /// The answer to the request waiting came at `now`: its round trip is recorded, and the next
    /// request goes `gap` after.
    mutating func answered(at now: Nanos, gap: Nanos) {
        guard let sent = sentAt else { return }
        if now - sent > histogram.max { slowestSentAt = sent - start }
        histogram.record(now - sent)
        sentAt = nil
        nextAt = now + gap
    }

    func figures(at end: Nanos) -> ProbeFigures {
        ProbeFigures(latency: LatencySummary(histogram), unansweredMicros: sentAt.map { Double(end - $0) / 1000 },
                     slowestSentAtSeconds: seconds(sentAt.map { $0 - start } ?? slowestSentAt))
    }
}

/// One probe connection and N attackers on one thread and one readiness set. The attackers
/// connect, then each writes its burst as fast as its socket takes it and never reads; from
/// the first write on, the probe sends its request, waits for the reply, pauses
/// `probeGapMilliseconds`, and again, recording each round trip.
final class BurstRun {
    private let options: BurstOptions
    private let poller: BlockingPoller
    private let burst: [UInt8]
    private var attackers: [(fd: Int32, written: Int)] = []
    private var probe: ProbeConnection
    private var probeTimer = ProbeTimer()
    private var attack = AttackFigures()
    private var writing = 0
    /// The probe's token; attackers are 0..<N.
    private var probeToken: Int { options.attackers }
    /// The `/healthz` probe (`--healthz-port`), timed like the line probe but apart.
    private var healthz: HealthzProbe?
    private var healthzTimer = ProbeTimer()
    private var healthzToken: Int { options.attackers + 1 }

    init(_ options: BurstOptions) throws(BenchError) {
        self.options = options
        do { poller = try BlockingPoller() } catch { throw BenchError.fatal("\(error)") }
        burst = options.burst
        probe = try ProbeConnection(options)
        if options.healthzPort > 0 { healthz = try HealthzProbe(host: options.common.endpoint.host, port: options.healthzPort) }
    }

    func run() throws(BenchError) -> BurstResult {
        let common = options.common
        try probe.connect(within: common.connectTimeout)
        try healthz?.connect(within: common.connectTimeout)
        try connectAttackers()
        poller.add(probe.fd, token: probeToken, interest: BlockingPoller.readable)
        if let healthz { poller.add(healthz.fd, token: healthzToken, interest: BlockingPoller.readable) }
        for (token, attacker) in attackers.enumerated() {
            poller.add(attacker.fd, token: token, interest: BlockingPoller.writable)
        }
        writing = attackers.count
        let start = monotonicNow()
        let end = start + nanos(seconds: common.duration)
        var interrupted = false
        probeTimer.begin(at: start)
        healthzTimer.begin(at: start)
        while true {
            let now = monotonicNow()
            if writing == 0 && attack.writtenSeconds == nil { attack.writtenSeconds = seconds(now - start) }
            if Interrupt.requested { interrupted = true; break }
            // After the window, only a probe still waiting is waited for (up to --drain).
            let waiting = probeTimer.sentAt != nil || healthzTimer.sentAt != nil
            if now >= end && (!waiting || now >= end + nanos(seconds: common.drain)) { break }
            if probeTimer.sentAt == nil && now >= probeTimer.nextAt && now < end {
                try probe.send()
                probeTimer.sentAt = now
            }
            if let healthz, healthzTimer.sentAt == nil && now >= healthzTimer.nextAt && now < end {
                try healthz.send()
                healthzTimer.sentAt = now
            }
            var wakeAt = probeTimer.sentAt == nil ? min(probeTimer.nextAt, end) : now + 50_000_000
            if healthz != nil && healthzTimer.sentAt == nil { wakeAt = min(wakeAt, max(now, healthzTimer.nextAt)) }
            let timeout = Int32(max(0, min(50, (Int64(wakeAt) - Int64(now) + 999_999) / 1_000_000)))
            for index in 0..<poller.wait(timeoutMilliseconds: timeout) {
                let token = poller.token(at: index)
                if token == probeToken {
                    try readProbe()
                } else if token == healthzToken {
                    try readHealthz()
                } else {
                    write(token)
                }
            }
        }
        let finished = monotonicNow()
        return BurstResult(options: options, probe: probeTimer.figures(at: finished),
                           measuredSeconds: seconds(min(finished, end) - start), attack: attack,
                           healthz: healthz.map { _ in healthzTimer.figures(at: finished) }, interrupted: interrupted)
    }

    /// Connects every attacker (the server's kernel completes the handshake; accepting is the
    /// server's business, measured with the rest).
    private func connectAttackers() throws(BenchError) {
        let address = try Endpoint(host: options.common.endpoint.host,
                                   port: options.httpPort > 0 ? options.httpPort : options.common.endpoint.port).socketAddress()
        let connecting = try BlockingPoller.make()
        for token in 0..<options.attackers {
            let fd = try Socket.startConnect(to: address)
            attackers.append((fd, 0))
            connecting.add(fd, token: token, interest: BlockingPoller.writable)
        }
        var pending = options.attackers
        let deadline = monotonicNow() + nanos(seconds: options.common.connectTimeout)
        while pending > 0 {
            guard monotonicNow() < deadline else { throw BenchError.fatal("attackers not connected within \(options.common.connectTimeout) s") }
            for index in 0..<connecting.wait(timeoutMilliseconds: 50) {
                let fd = attackers[connecting.token(at: index)].fd
                connecting.remove(fd)
                let code = Socket.pendingError(fd)
                guard code == 0 else { throw BenchError.fatal("cannot connect an attacker: \(errnoDescription(code))") }
                pending -= 1
            }
        }
    }

    /// Writes what the attacker's socket takes; once its burst is out it is left alone.
    private func write(_ token: Int) {
        var attacker = attackers[token]
        while attacker.written < burst.count {
            let sent = burst.withUnsafeBytes {
                Platform.send(attacker.fd, $0.baseAddress! + attacker.written, burst.count - attacker.written)
            }
            if sent > 0 {
                attacker.written += sent
                attack.bytesWritten += sent
            } else if sent < 0 && errno == EINTR {
                continue
            } else if sent < 0 && errno == EAGAIN {
                attackers[token] = attacker
                return
            } else {
                attack.closed += 1
                break
            }
        }
        attackers[token] = attacker
        poller.remove(attacker.fd)
        writing -= 1
    }

    /// The pause after an answer before the next request, the same for both probes.
    private var probeGap: Nanos { Nanos(options.probeGapMilliseconds) * 1_000_000 }

    private func readProbe() throws(BenchError) {
        try probe.receive { now in probeTimer.answered(at: now, gap: probeGap) }
    }

    /// The `/healthz` answer; a connection the server ends is replaced before the next probe.
    private func readHealthz() throws(BenchError) {
        guard var probe = healthz else { return }
        try probe.receive { now in healthzTimer.answered(at: now, gap: probeGap) }
        if probe.mustReconnect {
            poller.remove(probe.fd)
            try probe.reconnect(within: options.common.connectTimeout)
            poller.add(probe.fd, token: healthzToken, interest: BlockingPoller.readable)
        }
        healthz = probe
    }

    deinit {
        for attacker in attackers { Platform.close(attacker.fd) }
        probe.close()
        healthz?.close()
    }
}

extension BlockingPoller {
    static func make() throws(BenchError) -> BlockingPoller {
        do { return try BlockingPoller() } catch { throw BenchError.fatal("\(error)") }
    }
}

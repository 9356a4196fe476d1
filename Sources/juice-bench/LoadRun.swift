/// Latency percentiles of a histogram of nanoseconds, in microseconds.
struct LatencySummary {
    var count: UInt64
    var p50: Double, p90: Double, p99: Double, p999: Double, max: Double, mean: Double

    init(_ histogram: LatencyHistogram) {
        func micros(_ nanos: UInt64) -> Double { Double(nanos) / 1000 }
        count = histogram.count
        p50 = micros(histogram.value(atPercentile: 50))
        p90 = micros(histogram.value(atPercentile: 90))
        p99 = micros(histogram.value(atPercentile: 99))
        p999 = micros(histogram.value(atPercentile: 99.9))
        max = micros(histogram.max)
        mean = histogram.mean / 1000
    }
}

/// The figures of one load run, ready for reporting.
struct LoadResult {
    var plan: LoadPlan
    /// Seconds actually measured (shorter than asked if interrupted).
    var measuredSeconds: Double
    var replies: Int
    var errors: ErrorReplies
    var latency: LatencySummary
    var requestsSent: Int
    var events: Int
    var fanoutLatency: LatencySummary?
    var fanoutCheck: FanoutCheck?
    var expectedEventsPerWatcher: Int
    var losses: ConnectionLosses
    var unexpectedReplies: Int
    var interrupted: Bool
    /// juice-bench's own CPU time over the window (nil if the window never started).
    var benchCPU: CPUUsage?
    /// HTTP requesters reconnected after the server ended keep-alive.
    var reconnects = 0
    /// The server's CPU time and context switches over the window, or why they are missing.
    var server = ServerFigures.missing("not measured")

    var repliesPerSecond: Double { measuredSeconds > 0 ? Double(replies) / measuredSeconds : 0 }
    var eventsPerSecond: Double { measuredSeconds > 0 ? Double(events) / measuredSeconds : 0 }
}

/// The replies that were errors: in the window, in the whole run (warm-up included), and the
/// first one's text.
struct ErrorReplies {
    var window: Int
    var includingWarmup: Int
    var first: String?
}

/// The lines a run sends and the rules for reading what comes back, pre-encoded as bytes.
struct WireSettings {
    var requests: [ByteString]
    var setup: [ByteString]
    var watchSetup: [ByteString]
    var watchSetupReplyLines: Int
    var probe: ByteString?
    var replySkip: [ByteString]
    var eventMatch: [ByteString]
    var greetingLines: Int
    var watcherFraming = WatcherFraming.lines
    /// Requests are HTTP POSTs whose replies `HTTPReplyReader` reads (not lines).
    var httpRequests = false
}

extension WireSettings {
    init(_ plan: LoadPlan) {
        self.init(requests: plan.requests.map { ByteString($0, appendingCRLF: true) },
                  setup: plan.setup.map { ByteString($0, appendingCRLF: true) },
                  watchSetup: plan.watchSetup.map { ByteString($0, appendingCRLF: true) },
                  watchSetupReplyLines: plan.watchSetupLines, probe: nil,
                  replySkip: plan.replySkip.map { ByteString($0) },
                  eventMatch: plan.eventMatch.map { ByteString($0) },
                  greetingLines: plan.greetingLines)
        if plan.watcherFraming == .eventStream { self.useEventStreams() }
        if case .httpPost(let path) = plan.requestFraming {
            httpRequests = true
            requests = plan.requests.map { ByteString(httpPost(path: path, body: $0, host: plan.common.endpoint)) }
        }
    }

    /// The request an event-stream watcher sends, as a browser's EventSource would (no
    /// Last-Event-ID: the stream starts with the full state).
    static let eventStreamRequest = "GET /events HTTP/1.1\r\nHost: x\r\nAccept: text/event-stream\r\n\r\n"

    /// Watchers send the GET /events request, get no greeting, and are ready once the first
    /// message (the full state) arrived. JuiceCore's `EventStreamReader` reads the answer.
    mutating func useEventStreams() {
        watcherFraming = .eventStream
        watchSetup = [ByteString(Self.eventStreamRequest)]
        watchSetupReplyLines = 0
    }
}

extension LoadEngine {
    /// Runs a load plan: watchers first (ready before any order), then the request
    /// connections, then warm-up, the measured window, and a drain for the fan-out check.
    static func run(_ plan: LoadPlan) throws(BenchError) -> LoadResult {
        let common = plan.common
        let progress = ProgressLine(enabled: common.progress)
        let engine = try LoadEngine(endpoint: common.endpoint, watcherEndpoint: plan.watcherEndpoint,
                                    wire: WireSettings(plan), pipeline: plan.pipeline,
                                    connectBurst: common.connectBurst, watchers: plan.watchers,
                                    pacedFanout: plan.isPacedFanout, checkSequence: plan.checkSequence,
                                    progress: progress)
        let connectTimeout = nanos(seconds: common.connectTimeout)
        let serverProcess = try MeasuredServer.find(common)
        engine.serverPid = serverProcess.pid

        if plan.watchers > 0 {
            progress.stage = .connecting(what: plan.watcherNoun, target: plan.watchers)
            engine.open(.watcher, count: plan.watchers)
            let ready = try engine.pump(until: monotonicNow() + connectTimeout) { engine.readyWatchers == plan.watchers }
            try engine.requireReady(ready, what: plan.watcherNoun, count: engine.readyWatchers, of: plan.watchers, within: common.connectTimeout)
            // Let the server finish any work triggered by the new connections before load.
            _ = try engine.pump(until: monotonicNow() + nanos(seconds: 0.2)) { false }
        }

        progress.stage = .connecting(what: "request connections", target: plan.connections)
        let requesters = engine.open(.requester, count: plan.connections)
        let ready = try engine.pump(until: monotonicNow() + connectTimeout) { engine.readyRequesters == plan.connections }
        try engine.requireReady(ready, what: "request connections", count: engine.readyRequesters,
                                of: plan.connections, within: common.connectTimeout)

        // Go: every request connection fills its pipeline; replies keep it full.
        let start = monotonicNow()
        engine.windowStart = start + nanos(seconds: common.warmup)
        engine.windowEnd = engine.windowStart + nanos(seconds: common.duration)
        progress.stage = .running(start: start, warmupEnd: engine.windowStart)
        engine.sending = true
        for token in requesters {
            let connection = engine.connections[token]
            for _ in 0..<plan.pipeline { engine.queueRequest(connection) }
            engine.flush(connection)
        }
        _ = try engine.pump(until: engine.windowEnd) { false }
        engine.sending = false
        let measuredUntil = min(monotonicNow(), engine.windowEnd)
        let measuredSeconds = measuredUntil > engine.windowStart ? seconds(measuredUntil - engine.windowStart) : 0
        let benchCPU = engine.cpuAtWindowStart.map { CPUUsage.ofThisProcess() - $0 }
        let serverAtWindowEnd = engine.serverPid.flatMap(ServerSample.read)

        // Drain: wait for replies in flight and for every watcher to catch up.
        if !engine.interrupted {
            progress.stage = .draining
            _ = try engine.pump(until: monotonicNow() + nanos(seconds: common.drain)) { engine.isDrained(requesters) }
        }
        progress.finish()

        var outstanding = 0
        for token in requesters { outstanding += engine.connections[token].outstanding }
        var result = LoadResult(
            plan: plan, measuredSeconds: measuredSeconds, replies: engine.windowReplies,
            errors: ErrorReplies(window: engine.windowErrors, includingWarmup: engine.totalErrors, first: engine.firstErrorReply),
            latency: LatencySummary(engine.latency), requestsSent: engine.totalReplies + outstanding,
            events: engine.windowEvents, fanoutLatency: nil, fanoutCheck: nil,
            expectedEventsPerWatcher: engine.orderSendTimes.count, losses: engine.losses,
            unexpectedReplies: engine.unexpectedReplies,
            interrupted: engine.interrupted, benchCPU: benchCPU)
        result.reconnects = engine.reconnects
        result.server = ServerFigures(serverProcess, start: engine.serverAtWindowStart, end: serverAtWindowEnd)
        if plan.watchers > 0 {
            result.fanoutLatency = LatencySummary(engine.fanoutLatency)
            let tallies = engine.connections.filter { $0.role == .watcher }.map {
                WatcherTally(events: $0.eventsSeen, unattributedEvents: $0.unattributedEvents,
                             firstSequence: $0.firstSequence, lastSequence: $0.lastSequence,
                             sequenceFaults: $0.sequenceFaults)
            }
            // An interrupted run skipped the drain: events in flight would look lost.
            if engine.interrupted { return result }
            result.fanoutCheck = checkFanout(
                expected: engine.orderSendTimes.count, watchers: tallies, checkSequence: plan.checkSequence,
                firstOrderSequence: engine.firstOrderSequence, lastOrderSequence: engine.lastOrderSequence,
                orderSequenceFaults: engine.orderSequenceFaults)
        }
        return result
    }

    private func isDrained(_ requesters: Range<Int>) -> Bool {
        for token in requesters {
            let connection = connections[token]
            if connection.outstanding > 0 && connection.phase != .closed { return false }
        }
        if recordsOrders {
            let expected = orderSendTimes.count
            for connection in connections where connection.role == .watcher && connection.phase != .closed {
                if connection.eventsSeen < expected { return false }
            }
        }
        return true
    }

    func requireReady(_ ready: Bool, what: String, count: Int, of total: Int, within timeout: Double) throws(BenchError) {
        if ready { return }
        if interrupted { throw BenchError.fatal("interrupted while connecting \(what) (\(count) of \(total) ready)") }
        throw BenchError.fatal("only \(count) of \(total) \(what) to \(endpoint) were ready after \(timeout) s "
                               + "(connected, greeting and setup replies read)")
    }
}

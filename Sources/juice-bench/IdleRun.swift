import Foundation
import JuicePlatform

/// The server's resident memory (VmRSS in /proc/PID/status on Linux, ps(1) on Darwin).
enum ProcessMemory {
    static func residentKilobytes(pid: Int32) throws(BenchError) -> Int {
        guard let kilobytes = Platform.residentKilobytes(pid: pid) else {
            throw BenchError.fatal("cannot read the resident memory of process \(pid): is it the server's process id?")
        }
        return kilobytes
    }
}

extension IdleOptions {
    /// Where the event streams go (GET /events on the HTTP port, each proven by its first
    /// message); nil: line connections.
    var streamEndpoint: Endpoint? { eventStreams ? Endpoint(host: common.endpoint.host, port: httpPort) : nil }
}

/// The server's resident memory (kB, as /proc says) at the idle run's three readings: before
/// the connections, as soon as all were accepted, and after holding them.
struct RSSReadings {
    var before: Int
    var connected: Int
    var after: Int
}

struct IdleResult {
    var options: IdleOptions
    var rss: RSSReadings
    var heldSeconds: Double
    var losses: ConnectionLosses
    var interrupted: Bool

    var connections: Int { options.connections }
    /// Where the idle connections went: the HTTP port for event streams.
    var target: Endpoint { options.streamEndpoint ?? options.common.endpoint }

    /// The headline: what each connection added to the server's memory.
    var bytesPerConnectionAdded: Double {
        Double(rss.after - rss.before) * 1024 / Double(max(connections, 1))
    }
    /// The whole RSS divided by the connections (includes the server's baseline).
    var bytesPerConnectionTotal: Double {
        Double(rss.after) * 1024 / Double(max(connections, 1))
    }
}

extension LoadEngine {
    /// Opens N connections that send nothing (beyond an optional probe), waits until the
    /// server has provably accepted each, holds them, and reads the server's RSS.
    /// Idle event streams are watchers that never see an order: proven by their first message.
    static func runIdle(_ options: IdleOptions) throws(BenchError) -> IdleResult {
        let common = options.common
        let progress = ProgressLine(enabled: common.progress)
        var wire = WireSettings(requests: [], setup: [], watchSetup: [], watchSetupReplyLines: 0,
                                probe: options.probe.map { ByteString($0, appendingCRLF: true) },
                                replySkip: options.replySkip.map { ByteString($0) }, eventMatch: [],
                                greetingLines: options.greetingLines)
        if options.streamEndpoint != nil { wire.useEventStreams() }
        let engine = try LoadEngine(endpoint: common.endpoint, watcherEndpoint: options.streamEndpoint, wire: wire,
                                    pipeline: 1, connectBurst: common.connectBurst, watchers: 0, pacedFanout: false,
                                    checkSequence: false, progress: progress)
        let before = try ProcessMemory.residentKilobytes(pid: options.pid)

        let role: ConnectionRole = options.streamEndpoint == nil ? .idle : .watcher
        let what = options.streamEndpoint == nil ? "idle connections" : "idle event streams"
        progress.stage = .connecting(what: what, target: options.connections)
        engine.open(role, count: options.connections)
        let ready = try engine.pump(until: monotonicNow() + nanos(seconds: common.connectTimeout)) {
            engine.readyIdle + engine.readyWatchers == options.connections
        }
        try engine.requireReady(ready, what: what, count: engine.readyIdle + engine.readyWatchers, of: options.connections,
                                within: common.connectTimeout)
        let afterConnect = try ProcessMemory.residentKilobytes(pid: options.pid)

        let start = monotonicNow()
        progress.stage = .holding(start: start)
        _ = try engine.pump(until: start + nanos(seconds: common.duration)) { false }
        let after = try ProcessMemory.residentKilobytes(pid: options.pid)
        progress.finish()
        return IdleResult(options: options, rss: RSSReadings(before: before, connected: afterConnect, after: after),
                          heldSeconds: seconds(monotonicNow() - start), losses: engine.losses,
                          interrupted: engine.interrupted)
    }
}

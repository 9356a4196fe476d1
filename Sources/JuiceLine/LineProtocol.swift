import Dispatch
import JuiceCore
import JuiceDomain
import JuicePlatform
import JuiceLog
import JuiceLoop
import JuiceServices

/// The line protocol as the server serves it: what every line connection shares (the parser,
/// the codec, the store, the session commands, the output budget). Each connection's own state
/// is its `LineSession`.
package final class LineProtocol: ServedProtocol, @unchecked Sendable {
    // @unchecked: loop-confined, like the store it calls (they share the loop's executor).
    package static let name = "line"

    /// The line protocol on `port` (`--port`).
    package static func listing(port: Int?) -> ProtocolListing {
        ProtocolListing(name: name, port: port) { LineProtocol($0) }
    }

    /// What the loop shares: the store, the output path, the fan-out, the host.
    package let loop: LoopServices
    package let parser: CommandParser
    package let codec: LineCodec
    package let commands: SessionCommands
    /// Without a token every client may manage stock.
    package let isManagerByDefault: Bool
    /// Commands stop running for a client once this much of its output is pending (replies
    /// waiting for its socket or for the journal), and go on once it is down to a quarter.
    package let outputBudget: Int

    /// The buffers every line client's run borrows in turn (the loop runs one at a time).
    package struct Scratch {
        package var out: [UInt8] = []
        package var commands: [StoreCommand] = []
        /// A reply buffer past this is not kept.
        package static let keptBytes = 64 * 1024
    }

    /// Internal, not `package`: a stored field other modules could reach keeps a run-time
    /// exclusivity check at each access, four a read here.
    var scratch = Scratch()

    package static let defaultBudget = 256 * 1024
    /// Store commands run together in one call (one actor entry per run, not per line), at
    /// most this many, so the output budget and the turn's output are checked at least this
    /// often. 16: a pipeline of 16 (S2) is still one call per read.
    package static let storeRunMax = 16

    package init(_ services: LoopServices) {
        loop = services
        parser = CommandParser(menu: services.store.menu)
        codec = LineCodec(menu: services.store.menu)
        commands = SessionCommands(menu: services.store.menu, auth: services.auth)
        isManagerByDefault = services.config.managerToken == nil
        outputBudget = min(LineProtocol.defaultBudget, services.maxOutputBytes / 4)
    }

    package var logName: String { "" }
    package var acceptsWhileDraining: Bool { false }
    /// A line client takes events from the start (`EVENTS OFF` stops them).
    package var eventsFromStart: Bool { true }

    package func busyRefusal(perAddress: Bool) -> [UInt8] { perAddress ? Wire.busyForAddress : Wire.busy }

    package func session(for conn: Connection) -> any ConnectionSession {
        LineSession(SessionLink(conn, loop), protocol: self)
    }

    /// `EVENT STOCK seq=<n> fruit=value ...`, written by `Wire` itself (no codec step between).
    package func appendEvent(seq: UInt64, _ touched: [FruitValue], to out: inout [UInt8]) {
        Wire.appendEvent(seq: seq, touched, menu: codec.menu, to: &out)
    }

    package func stop() {}

    /// What only the server knows, for STATS: clients connected and seconds up.
    package var figures: (clients: Int, uptimeSeconds: UInt64) {
        (loop.clientCount, (DispatchTime.now().uptimeNanoseconds - loop.startedAt) / 1_000_000_000)
    }
}

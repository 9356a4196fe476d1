import Dispatch
import JuiceCore
import JuiceDomain
import JuiceLoop

/// How a protocol joins a server: its name (for `Server.port(of:)`), the port it listens on
/// (nil: off) and how it is made from what the server shares with it.
package struct ProtocolListing: Sendable {
    package let name: String
    package let port: Int?
    package let make: @Sendable (LoopServices) -> any ServedProtocol

    package init(name: String, port: Int?, make: @escaping @Sendable (LoopServices) -> any ServedProtocol) {
        self.name = name
        self.port = port
        self.make = make
    }
}

/// Everything a protocol is given when it is made: what the loop lends (`LoopHandle`), the
/// store, and the parts every protocol shares (the tills' presence, catch-ups, the manager's
/// token, the settings).
///
/// A class, made once per protocol and shared by it and every link it makes: as a struct it
/// was copied, a retain and a release for each of its references (the settings' among them),
/// wherever a call on it could not be inlined, as from another module (an HTTP request's
/// `isAccepting`), and every connection's link carried a copy.
package final class LoopServices {
    package let config: ServerConfig
    package let store: FruitStore
    // The loop's parts: JuiceServices' own (SessionLink); a protocol goes through a link.
    let output: OutputPath
    let fanOut: FanOut
    let passes: FlushPasses
    let gate: DurabilityGate
    /// Which connections are which paired till (the manager's list; revoking closes them).
    package let tills: TillPresence
    let catchUp: CatchUpPump
    package let auth: ManagerAuth
    package let queue: DispatchQueue
    /// When the server started (`DispatchTime` uptime nanoseconds), for STATS.
    package let startedAt: UInt64
    unowned let host: any ConnectionHost

    /// A client whose unsent output passes this is disconnected as a slow consumer.
    package var maxOutputBytes: Int { output.maxOutputBytes }
    /// Clients connected, all protocols together.
    package var clientCount: Int { host.clientCount }
    /// False once shutdown began.
    package var isAccepting: Bool { host.isAccepting }

    package init(_ loop: LoopHandle, config: ServerConfig, store: FruitStore, tills: TillPresence, catchUp: CatchUpPump,
                 auth: ManagerAuth, startedAt: UInt64) {
        self.config = config
        self.store = store
        output = loop.output
        fanOut = loop.fanOut
        passes = loop.passes
        gate = loop.gate
        self.tills = tills
        self.catchUp = catchUp
        self.auth = auth
        queue = loop.queue
        self.startedAt = startedAt
        host = loop.host
    }
}

extension ServerConfig {
    /// The loop's part of the settings.
    package var loop: LoopConfig {
        LoopConfig(host: host, maxClients: maxClients, reservedClients: reservedClients, maxClientsPerAddress: maxClientsPerAddress,
                   probationPerAddress: probationPerAddress, probationSeconds: probationSeconds, idleTimeoutSeconds: idleTimeoutSeconds,
                   maxOutputBytes: maxOutputBytes, trustedProxies: trustedProxies)
    }
}

import Dispatch
import JuiceCore
import JuicePlatform
import JuiceLog

/// A protocol the server speaks, as the loop sees it: what it sends a client it turns away, how
/// it words a stock change, and a session for each connection it accepts. The loop knows no
/// protocol by name: each comes to it as a `LoopListing`, which makes it.
package protocol ServedProtocol: AnyObject {
    /// Named in connect log lines ("connect 10.0.0.7:5000 (HTTP)"); empty for none.
    var logName: String { get }
    /// Whether it still takes connections once shutdown began (HTTP: to answer `503`).
    var acceptsWhileDraining: Bool { get }
    /// Whether a new connection takes live events from the start (a line client does; an HTTP
    /// one only once it asks for `/events`).
    var eventsFromStart: Bool { get }
    /// What a connection over a client limit is sent, just before it is closed.
    func busyRefusal(perAddress: Bool) -> [UInt8]
    /// The protocol's side of a connection just accepted.
    func session(for conn: Connection) -> any ConnectionSession
    /// A change's event in this protocol's form (an `EVENT STOCK` line, an event-stream
    /// message): the fan-out encodes each change once per protocol that has a listener for it.
    func appendEvent(seq: UInt64, _ touched: [FruitValue], to out: inout [UInt8])
    /// The server stopped: cancel timers.
    func stop()
    /// Whether a request may name its client (HTTP's `X-Forwarded-For` from a trusted proxy):
    /// then a trusted proxy's connections are counted per client by request
    /// (`ConnectionHost.countRequest`), not as the proxy's address at accept.
    var namesClients: Bool { get }
}

extension ServedProtocol {
    /// A protocol's peers are who they are, unless it says otherwise.
    package var namesClients: Bool { false }
}

/// A protocol's side of one connection, typed as the protocol needs it. The loop tells it what
/// happens, and updates what the socket is watched for after each call (so a session never has
/// to remember to).
package protocol ConnectionSession: AnyObject {
    /// It is accepted and watched: greet it, or start its request's deadline.
    func accepted()
    /// One read's bytes.
    func received(_ bytes: UnsafeRawBufferPointer)
    /// The peer finished sending.
    func inputEnded()
    /// Output went out, or its next turn came: go on with what waited for it.
    func drained()
    /// It is gone (already out of the loop's table).
    func closed()
    /// Shutdown began and it is closing: tell it, if the protocol has a way to, after the output
    /// that waits for the journal up to `lsn`.
    func shuttingDown(byeAfter lsn: UInt64)
    /// False while it has input waiting to run, or an answer on its way: nothing more is read.
    var wantsInput: Bool { get }
    /// It only listens (an event stream). Not a pass from the idle timeout: its sign of life is
    /// its socket taking its output (`Connection.lastActiveSecond`).
    var onlyListens: Bool { get }
}

/// A protocol the loop listens for: its name (for `port(of:)`), its port (nil: off) and how it
/// is made from what the loop lends it. Made once, when the loop starts.
package struct LoopListing {
    package let name: String
    package let port: Int?
    package let make: (LoopHandle) -> any ServedProtocol

    package init(name: String, port: Int?, make: @escaping (LoopHandle) -> any ServedProtocol) {
        self.name = name
        self.port = port
        self.make = make
    }
}

/// What the loop lends each protocol it runs: the output path, the fan-out, the flush passes,
/// the durability gate, its queue, and the host API. Nothing here names a store or another
/// protocol.
package struct LoopHandle {
    package let output: OutputPath
    package let fanOut: FanOut
    package let passes: FlushPasses
    /// Where a run's changes are published (`DurabilityGate.publish`): straight there, not
    /// through the host, one call less on every durable answer.
    package let gate: DurabilityGate
    package let queue: DispatchQueue
    package unowned let host: any ConnectionHost
}

/// The loop's own settings (a part of the server's: `ServerConfig.loop`).
package struct LoopConfig: Sendable {
    package var host: String
    package var maxClients: Int
    package var reservedClients: Int
    package var maxClientsPerAddress: Int?
    package var probationPerAddress: Int
    package var probationSeconds: UInt64
    package var idleTimeoutSeconds: Int?
    package var maxOutputBytes: Int
    package var trustedProxies: [AddressRange]

    package init(host: String, maxClients: Int, reservedClients: Int, maxClientsPerAddress: Int?, probationPerAddress: Int,
                 probationSeconds: UInt64, idleTimeoutSeconds: Int?, maxOutputBytes: Int, trustedProxies: [AddressRange]) {
        self.host = host
        self.maxClients = maxClients
        self.reservedClients = reservedClients
        self.maxClientsPerAddress = maxClientsPerAddress
        self.probationPerAddress = probationPerAddress
        self.probationSeconds = probationSeconds
        self.idleTimeoutSeconds = idleTimeoutSeconds
        self.maxOutputBytes = maxOutputBytes
        self.trustedProxies = trustedProxies
    }
}

/// What a protocol may ask of the loop.
package protocol ConnectionHost: AnyObject {
    /// It is done: close it once its output (and events it is owed) are out.
    func finish(_ conn: Connection)
    /// Close it now, with a reason for the log.
    func close(_ conn: Connection, reason: String?)
    /// Clients connected, all protocols together.
    var clientCount: Int { get }
    /// False once shutdown began.
    var isAccepting: Bool { get }
    /// THE hook for a connection that proved who it is (the manager's `AUTH` or `Bearer`, a
    /// paired till's credential): it moves from the anonymous pool (or probation) to the known
    /// one, which strangers cannot fill and the idle timeout does not close. Call it once the
    /// credential checked out; calling it again is harmless.
    func markKnown(_ conn: Connection)
    /// An HTTP request on `conn` comes from `client` (the peer, or who a trusted proxy names):
    /// counts the connection against that client's share. False: the client is over it (or the
    /// connection is on probation and no place freed), and the caller refuses the request.
    func countRequest(_ conn: Connection, from client: String) -> Bool
}

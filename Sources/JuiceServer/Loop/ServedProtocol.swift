import Dispatch
import JuiceCore
import JuiceDomain
import JuiceStorage

/// A protocol the server speaks, as the loop sees it: what it sends a client it turns away, how
/// it words a stock change, and a session for each connection it accepts. The loop knows no
/// protocol by name: each registers itself with a `ProtocolListing`.
protocol ServedProtocol: AnyObject {
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
    var namesClients: Bool { false }
}

/// A protocol's side of one connection, typed as the protocol needs it. The loop tells it what
/// happens, and updates what the socket is watched for after each call (so a session never has
/// to remember to).
protocol ConnectionSession: AnyObject {
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

/// How a protocol joins a server: its name (for `Server.port(of:)`), the port it listens on
/// (nil: off) and how it is made from what the loop shares.
struct ProtocolListing: Sendable {
    let name: String
    let port: Int?
    let make: @Sendable (LoopServices) -> any ServedProtocol
}

/// What a protocol may ask of the loop.
protocol ConnectionHost: AnyObject {
    /// It is done: close it once its output (and events it is owed) are out.
    func finish(_ conn: Connection)
    /// Close it now, with a reason for the log.
    func close(_ conn: Connection, reason: String?)
    /// Changes to broadcast to every client that listens, through the durability gate.
    func publish(_ events: [StockEvent])
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

/// Everything the loop shares with the protocols it runs, handed to each when it is made.
struct LoopServices {
    let config: ServerConfig
    let store: FruitStore
    let output: OutputPath
    let fanOut: FanOut
    let passes: FlushPasses
    /// Which connections are which paired till (the manager's list; revoking closes them).
    let tills: TillPresence
    let catchUp: CatchUpPump
    let auth: ManagerAuth
    let queue: DispatchQueue
    /// When the server started (`DispatchTime` uptime nanoseconds), for STATS.
    let startedAt: UInt64
    unowned let host: any ConnectionHost
}

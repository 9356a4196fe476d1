import Dispatch
import JuiceCore

/// What a protocol implements to serve connections. The loop (`Running`) owns the sockets, the
/// output path, the durability gate and the fan-out; it hands each connection's life to the
/// handler of the listener that accepted it and knows no protocol by name. A protocol keeps
/// its per-connection state in its own `Connection` subclass, made by `makeConnection`.
///
/// Adding a protocol is one line in `Running.protocols`.
protocol ConnectionHandler: AnyObject {
    /// Named in connect log lines ("connect 10.0.0.7:5000 (HTTP)"); empty for none.
    var logName: String { get }
    /// Whether it still takes connections once shutdown began (HTTP: to answer `503`).
    var acceptsWhileDraining: Bool { get }
    /// What a connection over a client limit is sent, just before it is closed.
    func busyRefusal(perAddress: Bool) -> [UInt8]

    /// The connection object for a socket just accepted (the protocol's own subclass).
    func makeConnection(id: UInt64, fd: Int32, peer: String, listener: UInt8, now: UInt64) -> Connection
    /// It is accepted and watched: greet it, or start its request's deadline.
    func accepted(_ conn: Connection)
    /// One read's bytes.
    func received(_ conn: Connection, _ bytes: UnsafeRawBufferPointer)
    /// The peer finished sending.
    func inputEnded(_ conn: Connection)
    /// Output went out: go on with what waited for it.
    func drained(_ conn: Connection)
    /// It is gone (already out of the loop's table).
    func closed(_ conn: Connection)
    /// Shutdown began and it is closing: tell it, if the protocol has a way to, after the output
    /// that waits for the journal up to `lsn`.
    func shuttingDown(_ conn: Connection, byeAfter lsn: UInt64)
    /// The server stopped: cancel timers.
    func stop()
}

/// What a handler may ask of the loop.
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
}

/// Everything the loop shares with the protocols it runs, handed to each when it is made.
struct LoopServices {
    let config: ServerConfig
    let store: FruitStore
    let output: OutputPath
    let fanOut: FanOut
    let auth: ManagerAuth
    let queue: DispatchQueue
    /// When the server started (`DispatchTime` uptime nanoseconds), for STATS.
    let startedAt: UInt64
    unowned let host: any ConnectionHost
}

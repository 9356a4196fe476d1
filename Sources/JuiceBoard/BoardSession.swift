import Foundation
@_exported import JuiceClient
import JuiceCore

/// What the I/O loop must do after the session digested a line or an update.
public struct SessionOutput: Equatable, Sendable {
    /// Command lines to send, in order (without line endings).
    public var commands: [String] = []
    /// One snapshot per applied change, in order: plain mode prints each as a line.
    public var changes: [StockUpdate] = []
    /// Something on screen may have changed (stock, menu, status).
    public var needsRedraw = false
    /// Close the connection and reconnect (server said BYE, or the reply stream is out of step).
    public var disconnect = false
    /// Why, for the log.
    public var note: String? = nil

    public init() {}
}

/// The board's view of the shop: JuiceClient's stock stream (`ShopUpdate`s) applied to the
/// `BoardState` it renders, with the board's own extras (when the stock last changed, the
/// connection status). The resume rules themselves (SINCE, held events, full snapshots, gaps)
/// are JuiceClient's `StockSync`; `receive` feeds it lines directly so those rules are tested
/// line by line here, exactly as the client runs them.
public struct BoardSession: Sendable {
    public private(set) var state: BoardState
    private var sync = StockSync()

    public init(serverAddress: String = "") {
        state = BoardState()
        state.serverAddress = serverAddress
    }

    /// Applies one element of `JuiceClient.stock()` at time `now`.
    public mutating func apply(_ update: ShopUpdate, now: Date) -> SessionOutput {
        var out = SessionOutput()
        apply(update, now: now, &out)
        return out
    }

    private mutating func apply(_ update: ShopUpdate, now: Date, _ out: inout SessionOutput) {
        switch update {
        case .full(let shop, let resync):
            let before = state.snapshot
            take(shop)
            // The first state is the first sync: a stream yields no `.online` for it.
            if state.connection == .connecting { state.connection = .connected }
            if resync, before != state.snapshot { state.lastChange = now }
        case .change(_, _, let shop):
            take(shop)
            state.lastChange = now
        case .offline(let attempt, let reason):
            state.connection = .reconnecting(attempt: attempt)
            out.note = "\(reason); reconnecting"
            out.needsRedraw = true
            return
        case .online:
            state.connection = .connected
            out.needsRedraw = true
            return
        }
        if let snapshot = state.snapshot { out.changes.append(snapshot) }
        out.needsRedraw = true
    }

    private mutating func take(_ shop: ShopState) {
        state.menu = shop.menu
        state.aliases = shop.aliases
        state.replaceStock(with: shop.snapshot)
    }

    // MARK: - Line by line (the rules JuiceClient runs, for tests)

    /// A new TCP connection is up; the session waits for the greeting before sending.
    public mutating func connectionOpened() {
        sync.connectionOpened()
    }

    /// The connection is gone; `attempt` is the number of the retry that comes next.
    public mutating func connectionLost(attempt: Int) {
        sync.connectionOpened()
        state.connection = .reconnecting(attempt: attempt)
    }

    /// A keepalive: the caller sends the returned line.
    public mutating func ping() -> String { sync.ping() }

    public var isSynced: Bool { sync.isSynced }

    /// Digest one received line at time `now`.
    public mutating func receive(_ line: String, now: Date) -> SessionOutput {
        let result = sync.receive(ServerLine.parse(line))
        var out = SessionOutput()
        out.commands = result.commands
        out.disconnect = result.disconnect
        out.note = result.note
        if let menu = sync.menu, menu != state.menu || sync.aliases != state.aliases {
            state.menu = menu
            state.aliases = sync.aliases
            out.needsRedraw = true
        }
        for update in result.updates { apply(update, now: now, &out) }
        if result.disconnect { out.note = result.note }
        return out
    }
}

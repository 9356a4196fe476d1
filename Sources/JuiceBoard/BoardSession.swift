import Foundation
import JuiceCore

/// What the I/O loop must do after the session digested a line.
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

/// The board's side of the juice-server v1 protocol, as a pure state machine: feed it every line
/// received (`receive`) and tell it about connection changes; it keeps BoardState current and
/// says what to send. No sockets here, so the resume rules are unit-tested line by line.
///
/// Why the rules look the way they do:
/// - Replies come in command order, so a FIFO of sent commands tells what each reply answers.
/// - Events may interleave with replies at any point. Until the base reply (`OK STOCK` on a first
///   connect, `OK SINCE` on a reconnect) has arrived they are held back: an event seen before
///   `OK SINCE` may be repeated after it, and applying it early would make the replayed
///   changes before it look like duplicates, i.e. lose them.
/// - After the base, an event whose seq <= the applied seq is a duplicate and is ignored;
///   an event naming every fruit is a full snapshot and replaces the stock.
/// - `OK SINCE <s> <current>` with current < s means a different or wiped store: the
///   full snapshot that follows is taken even though its seq is lower.
public struct BoardSession: Sendable {
    enum Command: Equatable, Sendable {
        case menu, aliases, stock, since(Int), ping

        var line: String {
            switch self {
            case .menu: return "MENU"
            case .aliases: return "MENU ALIASES"
            case .stock: return "STOCK"
            case .since(let seq): return "SINCE \(seq)"
            case .ping: return "PING"
            }
        }
    }

    public private(set) var state: BoardState
    private var pending: [Command] = []
    private var greeted = false
    /// Number of base replies (STOCK / SINCE) still outstanding; events wait while > 0.
    private var awaitingBase = 0
    private var heldEvents: [StockUpdate] = []
    private var acceptLowerFullSnapshot = false
    private var lastEmitted: StockUpdate? = nil
    /// Bound on events held before the base reply; in practice they are all repeats anyway.
    private let maxHeldEvents = 100_000

    public init(serverAddress: String = "") {
        state = BoardState()
        state.serverAddress = serverAddress
    }

    /// A new TCP connection is up; the session waits for the greeting before sending.
    public mutating func connectionOpened() {
        pending.removeAll()
        heldEvents.removeAll()
        greeted = false
        awaitingBase = 0
        acceptLowerFullSnapshot = false
    }

    /// The connection is gone; `attempt` is the number of the retry that comes next.
    public mutating func connectionLost(attempt: Int) {
        connectionOpened()
        state.connection = .reconnecting(attempt: attempt)
    }

    /// A keepalive: the caller sends the returned line.
    public mutating func ping() -> String {
        pending.append(.ping)
        return Command.ping.line
    }

    public var isSynced: Bool { greeted && awaitingBase == 0 && state.hasSnapshot }

    /// Digest one received line at time `now`.
    public mutating func receive(_ line: String, now: Date) -> SessionOutput {
        var out = SessionOutput()
        switch ServerLine.parse(line) {
        case .hello:
            guard !greeted else { break }
            greeted = true
            var commands: [Command] = [.menu, .aliases]
            if let seq = state.seq {
                commands.append(.since(seq))
            } else {
                commands.append(.stock)
            }
            awaitingBase = 1
            send(commands, &out)
        case .bye(let reason):
            out.disconnect = true
            out.note = "server said BYE \(reason)"
        case .stockEvent(let update):
            if awaitingBase > 0 || !greeted {
                if heldEvents.count < maxHeldEvents { heldEvents.append(update) }
            } else {
                applyEvent(update, now: now, &out)
            }
        case .otherEvent, .unknown:
            break
        case .ok(let verb, let fields):
            reply(ok: true, verb: verb, fields: fields, errText: nil, now: now, &out)
        case .err(let code, let message):
            reply(ok: false, verb: "", fields: [], errText: "\(code) \(message)", now: now, &out)
        }
        return out
    }

    private mutating func send(_ commands: [Command], _ out: inout SessionOutput) {
        pending.append(contentsOf: commands)
        out.commands.append(contentsOf: commands.map(\.line))
    }

    private mutating func reply(ok: Bool, verb: String, fields: [Substring], errText: String?,
                                now: Date, _ out: inout SessionOutput) {
        guard !pending.isEmpty else { return } // a reply to nothing: ignore it
        let command = pending.removeFirst()
        if ok, !Self.reply(verb: verb, fields: fields, answers: command) {
            out.disconnect = true
            out.note = "reply OK \(verb) does not answer \(command.line); reconnecting"
            return
        }
        switch command {
        case .menu:
            guard ok, let menu = WireReader.menu(fields: fields) else { break }
            let hadMenu = state.menu != nil || state.hasSnapshot
            if menu != state.menu {
                state.menu = menu
                out.needsRedraw = true
                // The menu changed while we were away: the fruits may have too, so take a
                // fresh snapshot rather than trusting the old fruit list.
                if hadMenu, state.hasSnapshot, pending.contains(where: { if case .since = $0 { true } else { false } }) {
                    awaitingBase += 1
                    send([.stock], &out)
                }
            }
        case .aliases:
            let aliases = ok ? Aliases.parse(fields: Array(fields.dropFirst())) : .none
            if aliases != state.aliases {
                state.aliases = aliases
                out.needsRedraw = true
            }
        case .stock:
            guard ok, let snapshot = StockUpdate.parse(fields: fields) else {
                out.disconnect = true
                out.note = "STOCK failed: \(errText ?? "unreadable reply"); reconnecting"
                return
            }
            let isRefresh = state.hasSnapshot
            acceptLowerFullSnapshot = false // a STOCK reply is itself the fresh full picture
            state.replaceStock(with: snapshot)
            if isRefresh, lastEmitted != state.snapshot { state.lastChange = now }
            emitIfChanged(&out)
            baseArrived(after: snapshot.seq, now: now, &out)
        case .since(let from):
            guard ok else {
                // A server without SINCE (or one that refused it): fall back to a full snapshot.
                send([.stock], &out)
                return
            }
            let current = WireReader.since(fields: fields).map { Int(clamping: $0.current) }
            if let current, current < from { acceptLowerFullSnapshot = true }
            baseArrived(after: current ?? from, now: now, &out)
        case .ping:
            break
        }
    }

    private static func reply(verb: String, fields: [Substring], answers command: Command) -> Bool {
        switch command {
        case .menu: return verb == "MENU" && fields.first != "ALIASES"
        case .aliases: return verb == "MENU" && fields.first == "ALIASES"
        case .stock: return verb == "STOCK"
        case .since: return verb == "SINCE"
        case .ping: return verb == "PONG"
        }
    }

    /// A base reply arrived: events held until now that are not covered by it are applied.
    private mutating func baseArrived(after baseSeq: Int, now: Date, _ out: inout SessionOutput) {
        awaitingBase = max(0, awaitingBase - 1)
        guard awaitingBase == 0 else { return }
        let held = heldEvents
        heldEvents.removeAll()
        for update in held where update.seq > baseSeq {
            applyEvent(update, now: now, &out)
        }
        if state.connection != .connected {
            state.connection = .connected
        }
        out.needsRedraw = true
    }

    private mutating func applyEvent(_ update: StockUpdate, now: Date, _ out: inout SessionOutput) {
        let full = state.isFullSnapshot(update)
        if acceptLowerFullSnapshot, full {
            acceptLowerFullSnapshot = false
            state.replaceStock(with: update)
        } else {
            guard let seq = state.seq, update.seq > seq else { return } // duplicate
            if full {
                state.replaceStock(with: update)
            } else {
                state.applyChange(update)
                if update.seq > seq + 1 {
                    // A gap the protocol promises never happens: resynchronise rather than
                    // show numbers that may be stale.
                    awaitingBase += 1
                    send([.stock], &out)
                    out.note = "gap after seq \(seq) (got \(update.seq)); taking a fresh STOCK"
                }
            }
        }
        state.lastChange = now
        emitIfChanged(&out)
    }

    private mutating func emitIfChanged(_ out: inout SessionOutput) {
        guard let snapshot = state.snapshot, snapshot != lastEmitted else { return }
        lastEmitted = snapshot
        out.changes.append(snapshot)
        out.needsRedraw = true
    }
}

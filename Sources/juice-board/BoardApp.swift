import Foundation
import JuiceBoard
import JuiceClient
import JuicePlatform
import JuiceScreen
import JuiceTerminal

/// The board's event loop: one thread, one poll() over the signal pipe, the keyboard and the
/// mailbox that JuiceClient's stock stream posts to. Connecting, reconnecting with backoff,
/// keepalives and resuming with SINCE are the client's; every update is applied to the state
/// as it arrives, and the screen is redrawn at most every `frameInterval`, so a burst of
/// thousands of events costs a handful of redraws.
final class BoardApp {
    static let frameInterval = 0.05          // at most ~20 redraws a second

    private let options: BoardOptions
    private let plain: Bool
    private var session: BoardSession
    private let shop: JuiceClient
    private let updates: Mailbox<ShopUpdate>

    private let terminal = Terminal()
    private var signals: SignalPipe? = nil
    private var watchKeyboard = false
    private var size = TerminalSize.fallback
    private var shownScreen: [String]? = nil
    private var dirty = true
    private var lastFrameAt = -1.0
    private var running = true
    private let logToStderr: Bool

    init(options: BoardOptions, plain: Bool) throws {
        self.options = options
        self.plain = plain
        self.session = BoardSession(serverAddress: options.serverAddress)
        // The board only watches: no call of its own ever waits on the bound.
        shop = JuiceClient(host: options.host, port: options.port)
        updates = try Mailbox()
        // On the board, stderr would scribble over the screen; there, say nothing.
        self.logToStderr = plain || !Terminal.isTerminal(STDERR_FILENO)
    }

    func run() throws -> Int32 {
        signal(SIGPIPE, SIG_IGN) // a vanished reader shows up as EPIPE instead
        signals = try SignalPipe(signals: [SIGINT, SIGTERM, SIGWINCH])
        if !plain {
            size = terminal.size()
            terminal.enter()
            watchKeyboard = Terminal.isTerminal(STDIN_FILENO)
        }
        defer { terminal.restore() }
        let stream = shop.stock(), mailbox = updates
        let follower = Task { for await update in stream { mailbox.post(update) } }
        defer { follower.cancel(); shop.close() }

        while running {
            if !plain && dirty && monotonicNow() - lastFrameAt >= Self.frameInterval { drawFrame() }
            waitAndHandle(timeoutMs: pollTimeoutMs(now: monotonicNow()))
        }
        return 0
    }

    // MARK: - Poll

    private func pollTimeoutMs(now: Double) -> Int32 {
        var deadline = now + 1.0
        if !plain && dirty { deadline = min(deadline, lastFrameAt + Self.frameInterval) }
        return Int32(max(0, min(1000, ((deadline - now) * 1000).rounded(.up))))
    }

    private func waitAndHandle(timeoutMs: Int32) {
        var fds = [pollfd(fd: updates.readFD, events: Int16(POLLIN), revents: 0)]
        if let signals { fds.append(pollfd(fd: signals.readFD, events: Int16(POLLIN), revents: 0)) }
        let keyboardIndex = fds.count
        if watchKeyboard { fds.append(pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0)) }
        let ready = poll(&fds, nfds_t(fds.count), timeoutMs)
        guard ready > 0 else { return } // timeout, or EINTR: the loop re-checks everything

        if fds[0].revents != 0 { for update in updates.take() { handle(update) } }
        if signals != nil, fds[1].revents != 0 { handleSignals() }
        if watchKeyboard, fds[keyboardIndex].revents != 0 { handleKeyboard() }
    }

    // MARK: - Signals and keys

    private func handleSignals() {
        for signo in signals?.drain() ?? [] {
            switch signo {
            case SIGWINCH:
                guard !plain else { continue }
                size = terminal.size()
                shownScreen = nil // redraw everything at the new size
                dirty = true
            default: // SIGINT, SIGTERM
                running = false
            }
        }
    }

    private func handleKeyboard() {
        var buffer = [UInt8](repeating: 0, count: 64)
        let n = read(STDIN_FILENO, &buffer, buffer.count)
        if n == 0 { watchKeyboard = false; return } // keyboard gone: keep showing
        guard n > 0 else { return }
        if buffer[0..<n].contains(UInt8(ascii: "q")) || buffer[0..<n].contains(UInt8(ascii: "Q")) { running = false }
        if buffer[0..<n].contains(12) { shownScreen = nil; dirty = true } // Ctrl-L repaints
    }

    // MARK: - The stock

    private func handle(_ update: ShopUpdate) {
        let output = session.apply(update, now: Date())
        // The first state is the first connection; `.online` marks the ones after an outage.
        if case .full(_, resync: false) = update { log("connected to \(options.serverAddress)") }
        if case .online = update { log("connected to \(options.serverAddress)") }
        if let note = output.note { log(note) }
        if plain {
            for change in output.changes {
                if !Platform.writeAll(STDOUT_FILENO, PlainFormat.line(change) + "\n") { running = false }
            }
        }
        if output.needsRedraw { dirty = true }
    }

    // MARK: - Output

    private func drawFrame() {
        let screen = BoardRenderer.render(session.state, size: size,
                                          options: RenderOptions(language: options.language, color: options.color))
        let update = ScreenDiff.updates(from: shownScreen, to: screen, columns: size.columns)
        if !update.isEmpty, !Platform.writeAll(STDOUT_FILENO, update) { running = false }
        shownScreen = screen
        dirty = false
        lastFrameAt = monotonicNow()
    }

    private func log(_ message: String) {
        guard logToStderr else { return }
        Platform.writeAll(STDERR_FILENO, "juice-board: \(message)\n")
    }
}

/// Seconds on a clock that never jumps (deadlines must not move with the wall clock).
func monotonicNow() -> Double {
    Double(Platform.monotonicNanoseconds()) / 1e9
}

import Foundation
import JuiceBoard
import JuicePlatform

/// The board's event loop: one thread, one poll() over the server socket, the signal pipe and
/// the keyboard. Every event is applied to the state as it arrives; the screen is redrawn at
/// most every `frameInterval`, so a burst of thousands of events costs a handful of redraws.
final class BoardApp {
    static let frameInterval = 0.05          // at most ~20 redraws a second
    static let connectTimeout = 5.0
    static let pingAfterIdle = 10.0          // ask for a PONG when the server has been quiet...
    static let dropAfterIdle = 25.0          // ...and give up on it when even that got no answer

    private let options: BoardOptions
    private let plain: Bool
    private var session: BoardSession
    private var backoff = Backoff()
    private var attempt = 0
    private var connection: ServerConnection? = nil
    private var connectStartedAt = 0.0
    private var lastHeardAt = 0.0
    private var pingSent = false
    private var reconnectAt = 0.0

    private let terminal = Terminal()
    private var signals: SignalPipe? = nil
    private var watchKeyboard = false
    private var size = TerminalSize(columns: 80, rows: 24)
    private var shownScreen: [String]? = nil
    private var dirty = true
    private var lastFrameAt = -1.0
    private var running = true
    private let logToStderr: Bool

    init(options: BoardOptions, plain: Bool) {
        self.options = options
        self.plain = plain
        self.session = BoardSession(serverAddress: options.serverAddress)
        // On the board, stderr would scribble over the screen; there, say nothing.
        self.logToStderr = plain || !Terminal.isTerminal(STDERR_FILENO)
    }

    func run() throws -> Int32 {
        signal(SIGPIPE, SIG_IGN) // a vanished server or reader shows up as EPIPE instead
        signals = try SignalPipe(signals: [SIGINT, SIGTERM, SIGWINCH])
        if !plain {
            size = terminal.size()
            terminal.enter()
            watchKeyboard = Terminal.isTerminal(STDIN_FILENO)
        }
        defer { terminal.restore() }

        while running {
            let now = monotonicNow()
            if connection == nil && now >= reconnectAt { startConnecting(now: now) }
            checkTimeouts(now: monotonicNow())
            if !plain && dirty && monotonicNow() - lastFrameAt >= Self.frameInterval { drawFrame() }
            waitAndHandle(timeoutMs: pollTimeoutMs(now: monotonicNow()))
        }
        return 0
    }

    // MARK: - Poll

    private func pollTimeoutMs(now: Double) -> Int32 {
        var deadline = now + 1.0
        if connection == nil { deadline = min(deadline, reconnectAt) }
        if !plain && dirty { deadline = min(deadline, lastFrameAt + Self.frameInterval) }
        return Int32(max(0, min(1000, ((deadline - now) * 1000).rounded(.up))))
    }

    private func waitAndHandle(timeoutMs: Int32) {
        var fds: [pollfd] = []
        if let signals { fds.append(pollfd(fd: signals.readFD, events: Int16(POLLIN), revents: 0)) }
        let keyboardIndex = fds.count
        if watchKeyboard { fds.append(pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0)) }
        let socketIndex = fds.count
        if let connection {
            var events = Int16(POLLIN)
            if connection.wantsToWrite { events |= Int16(POLLOUT) }
            fds.append(pollfd(fd: connection.fd, events: events, revents: 0))
        }
        let ready = poll(&fds, nfds_t(fds.count), timeoutMs)
        guard ready > 0 else { return } // timeout, or EINTR: the loop re-checks everything

        if signals != nil, fds[0].revents != 0 { handleSignals() }
        if watchKeyboard, fds[keyboardIndex].revents != 0 { handleKeyboard() }
        if connection != nil, socketIndex < fds.count, fds[socketIndex].revents != 0 {
            handleSocket(revents: fds[socketIndex].revents)
        }
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

    // MARK: - Connection

    private func startConnecting(now: Double) {
        do {
            let connection = try ServerConnection(host: options.host, port: options.port, attempt: attempt)
            self.connection = connection
            connectStartedAt = now
            lastHeardAt = now
            pingSent = false
            session.connectionOpened()
        } catch {
            connectionFailed("\(error)")
        }
    }

    private func handleSocket(revents: Int16) {
        guard let connection else { return }
        do {
            if connection.isConnecting {
                guard revents & Int16(POLLOUT | POLLERR | POLLHUP) != 0 else { return }
                try connection.finishConnecting()
                log("connected to \(options.serverAddress)")
            }
            if revents & Int16(POLLIN | POLLHUP | POLLERR) != 0 {
                let result = connection.readLines()
                if !result.lines.isEmpty { lastHeardAt = monotonicNow(); pingSent = false }
                for line in result.lines {
                    handleLine(line)
                    if self.connection == nil { return } // the line ended the session
                }
                if let reason = result.closedReason {
                    connectionFailed(reason)
                    return
                }
            }
            try connection.flush()
        } catch {
            connectionFailed("\(error)")
        }
    }

    private func handleLine(_ line: String) {
        let output = session.receive(line, now: Date())
        if let note = output.note { log(note) }
        for command in output.commands { connection?.send(command) }
        if plain {
            for change in output.changes {
                if !Platform.writeAll(STDOUT_FILENO, PlainFormat.line(change) + "\n") { running = false }
            }
        }
        if output.needsRedraw { dirty = true }
        if session.isSynced { backoff.reset(); attempt = 0 }
        if output.disconnect { connectionFailed(output.note ?? "disconnecting") }
    }

    private func checkTimeouts(now: Double) {
        guard let connection else { return }
        if connection.isConnecting {
            if now - connectStartedAt > Self.connectTimeout { connectionFailed("connect timed out") }
            return
        }
        let idle = now - lastHeardAt
        if idle > Self.dropAfterIdle {
            connectionFailed("no answer from the server for \(Int(idle)) s")
        } else if idle > Self.pingAfterIdle && !pingSent && session.isSynced {
            pingSent = true
            connection.send(session.ping())
            try? connection.flush()
        }
    }

    /// Drops the connection and schedules the next try with backoff.
    private func connectionFailed(_ reason: String) {
        connection = nil // closes the socket
        attempt += 1
        let delay = backoff.nextDelay()
        reconnectAt = monotonicNow() + delay
        session.connectionLost(attempt: attempt)
        dirty = true
        log("\(reason); reconnecting in \(Int(delay * 1000)) ms")
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

import JuicePlatform
import JuiceScreen

/// The bits of the terminal the board touches: size, raw-ish input mode, alternate screen.
/// Everything it changes is put back by `restore()`, which is safe to call more than once.
public final class Terminal {
    public static let enterScreen = "\u{1B}[?1049h\u{1B}[?25l\u{1B}[H\u{1B}[2J" // alternate screen, hide cursor
    public static let leaveScreen = "\u{1B}[0m\u{1B}[?25h\u{1B}[?1049l"         // colours off, cursor, main screen

    private let outputFD: Int32
    private let inputFD: Int32
    private var savedTermios: termios? = nil
    private var active = false

    public init(outputFD: Int32 = STDOUT_FILENO, inputFD: Int32 = STDIN_FILENO) {
        self.outputFD = outputFD
        self.inputFD = inputFD
    }

    public static func isTerminal(_ fd: Int32) -> Bool { isatty(fd) == 1 }

    /// Rows and columns from TIOCGWINSZ; 80x24 when the terminal does not say.
    public func size() -> TerminalSize {
        var ws = winsize()
        let ok = withUnsafeMutablePointer(to: &ws) { ioctl(outputFD, UInt(TIOCGWINSZ), $0) } == 0
        guard ok, ws.ws_col > 0, ws.ws_row > 0 else { return .fallback }
        return TerminalSize(columns: Int(ws.ws_col), rows: Int(ws.ws_row))
    }

    /// Switch to the alternate screen with the cursor hidden; if the keyboard is a terminal,
    /// stop echo and line buffering so typed keys neither scribble on the board nor wait for
    /// Enter ("q" quits). ISIG stays on: Ctrl-C still arrives as SIGINT.
    public func enter() {
        if Terminal.isTerminal(inputFD) {
            var settings = termios()
            if tcgetattr(inputFD, &settings) == 0 {
                savedTermios = settings
                settings.c_lflag &= ~tcflag_t(ECHO | ICANON)
                withUnsafeMutableBytes(of: &settings.c_cc) { cc in
                    cc[Int(VMIN)] = 0
                    cc[Int(VTIME)] = 0
                }
                tcsetattr(inputFD, TCSANOW, &settings)
            }
        }
        Platform.writeAll(outputFD, Terminal.enterScreen)
        active = true
    }

    public func restore() {
        guard active else { return }
        active = false
        Platform.writeAll(outputFD, Terminal.leaveScreen)
        if var saved = savedTermios {
            tcsetattr(inputFD, TCSANOW, &saved)
            savedTermios = nil
        }
    }
}

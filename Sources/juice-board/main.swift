// juice-board: a live display of the juice stand's stock. The work is in BoardApp;
// the rendering and protocol rules are in the JuiceBoard library.
import Foundation
import JuicePlatform
import JuiceBoard
import JuiceTerminal

let options = BoardOptions.fromCommandLine(program: "juice-board", environment: ProcessInfo.processInfo.environment)

// Plain lines when asked, or when stdout is a pipe or file rather than a screen.
let plain = options.plain || !Terminal.isTerminal(STDOUT_FILENO)
do {
    exit(try BoardApp(options: options, plain: plain).run())
} catch {
    Platform.writeAll(STDERR_FILENO, "juice-board: \(error)\n")
    exit(1)
}

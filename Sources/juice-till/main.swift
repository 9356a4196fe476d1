// juice-till: a till for the juice stand, on the JuiceClient library. Full screen on a terminal
// (TillApp), one order a line when piped (PipedTill). Keys and screen rules are in JuiceTill.
import Foundation
import JuicePlatform
import JuiceTerminal
import JuiceTill

let environment = ProcessInfo.processInfo.environment
let options = TillOptions.fromCommandLine(program: "juice-till", environment: environment)
signal(SIGPIPE, SIG_IGN) // a vanished reader shows up as EPIPE instead

do {
    let keys = try TillKeys(directory: TillKeys.directory(environment: environment), tillID: options.tillID)
    let sales = Sales(options: options, keys: keys, token: TillOptions.managerToken(environment: environment))
    defer { sales.close() }
    if Terminal.isTerminal(STDIN_FILENO) && Terminal.isTerminal(STDOUT_FILENO) {
        exit(try TillApp(options: options, sales: sales).run())
    } else {
        exit(PipedTill(sales: sales).run())
    }
} catch let inUse as TillKeys.InUse {
    Platform.writeAll(STDERR_FILENO, "juice-till: \(inUse)\n")
    exit(2)
} catch {
    Platform.writeAll(STDERR_FILENO, "juice-till: \(error)\n")
    exit(1)
}

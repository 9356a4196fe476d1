// juice-till: a till for the juice stand, on the JuiceClient library. Full screen on a terminal
// (TillApp), one order a line when piped (PipedTill). Keys and screen rules are in JuiceTill.
import Foundation
import JuicePlatform
import JuiceTerminal
import JuiceTill
import Synchronization
import JuiceClient

let environment = ProcessInfo.processInfo.environment
let options = TillOptions.fromCommandLine(program: "juice-till", environment: environment)
signal(SIGPIPE, SIG_IGN) // a vanished reader shows up as EPIPE instead

do {
    let keys = try TillKeys(directory: TillKeys.directory(environment: environment), tillID: options.tillID)
    let credentialPath = options.credentialFile ?? TillCredentialFile.defaultPath(environment: environment)
    // With --pair the file is written below; a file named on the command line must be there.
    let credential = options.pairingCode != nil ? nil : try TillCredentialFile.read(credentialPath)
    if credential == nil, options.pairingCode == nil, options.credentialFile != nil {
        throw TillCredentialFile.Problem(description: "no credential in \(credentialPath): pair first with --pair CODE")
    }
    let sales = Sales(options: options, keys: keys, token: TillOptions.managerToken(environment: environment), credential: credential)
    defer { sales.close() }
    if let code = options.pairingCode {
        let paired = try waitFor { try await sales.pair(code: code, savingTo: credentialPath) }.get()
        Platform.writeAll(STDERR_FILENO, "juice-till: paired as \(paired); the credential is kept in \(credentialPath)\n")
    }
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

/// Runs `body` in a task and waits for its outcome on this thread, the main thread (not one of
/// the concurrency pool's): for pairing before the till's own loop, and for each piped order.
func waitFor<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) -> Result<T, any Error> {
    let done = DispatchSemaphore(value: 0)
    let outcome = Mutex<Result<T, any Error>?>(nil)
    Task.detached {
        let result: Result<T, any Error>
        do { result = .success(try await body()) } catch { result = .failure(error) }
        outcome.withLock { $0 = result }
        done.signal()
    }
    done.wait()
    return outcome.withLock { $0 }!
}

// juice-server: parse flags, open the store, serve until SIGINT/SIGTERM. Everything else lives in
// the JuiceServer library.
import Dispatch
import Foundation
import JuiceCore
import JuiceDomain
import JuicePlatform
import JuiceLog
import JuiceServer
import JuiceServices

// Blocked before any other thread exists, so every thread inherits the block: see StopSignals.
StopSignals.block()

var config: ServerConfig
switch CommandLineOptions.parse(Array(CommandLine.arguments.dropFirst()), environment: ProcessInfo.processInfo.environment) {
case .failure(let error):
    FileHandle.standardError.write(Data((error.description + "\n").utf8))
    exit(2)
case .success(.help):
    print(CommandLineOptions.help)
    exit(0)
case .success(.version):
    print("juice-server \(JuiceVersion.current)")
    exit(0)
case .success(.printMenu(let menu)):
    print(MenuFile.json(menu))
    exit(0)
case .success(.backup(let request)):
    // A server that vanishes mid-answer must be an error message, not a silent death. Blocked,
    // SIGINT and SIGTERM would never end one that hangs: not Ctrl-C, not the unit's timeout.
    signal(SIGPIPE, SIG_IGN)
    StopSignals.unblock()
    exit(BackupCommand.run(request))
case .success(.verify(let file)):
    StopSignals.unblock()
    exit(VerifyCommand.run(file))
case .success(.restore(let file, let directory, let force)):
    // Left blocked: a restore is not cut off between setting the old files aside and placing
    // the new ones (only SIGKILL or a power cut can, and the old files stay beside them).
    exit(RestoreCommand.run(file, directory: directory, force: force))
case .success(.run(let parsed)):
    config = parsed
}

Log.level = config.logLevel
// A peer that vanished must cost us one connection, never the process.
signal(SIGPIPE, SIG_IGN)
config.maxClients = MaxClients.fit(config.maxClients)

// systemd (Type=notify): readiness, status, stopping and the watchdog. Nil outside systemd.
let environment = ProcessInfo.processInfo.environment
let notifier = ServiceNotifier(environment: environment)
nonisolated(unsafe) var watchdog: ServiceWatchdog?

let server: Server
do {
    server = try Server.make(config)
} catch {
    Log.error("cannot start: \(error)")
    Log.flush()
    exit(1)
}

// Detached: top-level code is the main actor's, and the main thread only waits for signals.
Task.detached { [config, notifier, environment] in
    do {
        let port = try await server.start()
        // One line a script can wait for; written unbuffered, so it shows at once in a pipe.
        // (a plain write: FileHandle traps when stdout is closed or a broken pipe)
        _ = Platform.writeAll(1, "juice-server listening on \(config.host):\(port)\n")
        if let httpPort = await server.httpPort {
            let host = config.host.contains(":") && !config.host.hasPrefix("[") ? "[\(config.host)]" : config.host
            _ = Platform.writeAll(1, "juice-server board on http://\(host):\(httpPort)/\n")
        }
        if let notifier {
            // Listening, and the store recovered (Server.make): systemd may start what depends on us.
            let ports = "line \(config.host):\(port)" + ((await server.httpPort).map { ", HTTP port \($0)" } ?? "")
            let seq = await server.seq
            let status: @Sendable (UInt64) -> String = { "serving \(ports); seq=\($0)" }
            notifier.send(["READY=1", "STATUS=" + status(seq)])
            if let interval = ServiceNotifier.watchdogPingInterval(environment: environment) {
                watchdog = ServiceWatchdog(server: server, notifier: notifier, intervalMicroseconds: interval, seq: seq, status: status)
            }
        }
        Log.lifecycle("serving \(config.dataDirectory.map { "data in \($0)" } ?? "in memory"), max \(config.maxClients) clients (\(min(config.reservedClients, config.maxClients / 2)) kept for known clients, \(config.maxClientsPerAddress.map { "\($0) anonymous per address" } ?? "no share per address"), idle timeout \(config.idleTimeoutSeconds.map { "\($0) s" } ?? "off")), manager token \(config.managerToken == nil ? "off (loopback only)" : "on")")
    } catch {
        // A bind or listen error names its address (the line port or the HTTP port).
        Log.error("cannot listen: \(error)")
        Log.flush()
        exit(1)
    }
}
var stopping = false
StopSignals.wait { _ in
    if stopping {
        Log.lifecycle("second signal: exiting now")
        Log.flush(seconds: 0.5)
        exit(1)
    }
    stopping = true
    notifier?.send(["STOPPING=1", "STATUS=shutting down: flushing replies and the journal"])
    Task.detached { [server, deadline = config.shutdownTimeoutSeconds] in
        // 3, as for a failed journal write: a supervisor must not take this stop for a clean one.
        await server.shutdown(deadline: deadline) { durable in
            Log.flush()
            exit(durable ? 0 : 3)
        }
    }
}

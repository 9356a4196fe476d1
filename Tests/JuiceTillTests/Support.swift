import Foundation
@_exported import JuiceTestSupport
import Testing
import JuiceClient
import JuiceTill

/// A client on `server`'s port, for the server's own view (its stats) beside what the till says.
func client(_ server: ExecutableServer) -> JuiceClient {
    JuiceClient(configuration: JuiceClient.Configuration(port: UInt16(server.port)))
}

/// Pairs a till on `server` (whose manager token is `token`) as `juice-till --pair` would, and
/// keeps the credential where juice-till reads it with `XDG_CONFIG_HOME=configHome`: a server
/// with a token takes orders only from paired tills.
func pairTill(_ server: ExecutableServer, token: String, configHome: String) async throws {
    let manager = try server.client()
    defer { manager.close() }
    #expect(manager.ask("AUTH \(token)").hasPrefix("OK"))
    let made = manager.ask("TILLS NEW tmux till")
    let code = try #require(made.split(separator: " ").first { $0.hasPrefix("code=") }?.dropFirst(5), "\(made)")
    let device = client(server)
    defer { device.close() }
    let paired = try await device.pair(code: String(code))
    try TillCredentialFile.write(paired.credential, to: TillCredentialFile.defaultPath(environment: ["XDG_CONFIG_HOME": configHome]))
}

/// A juice-server with a manager token, its data in `work`/data, and a till paired with it
/// (`pairTill`) whose credential juice-till finds with `XDG_CONFIG_HOME=work/config`: a server
/// with a token takes orders only from paired tills. `work` is a temporary directory named
/// after `name`, removed when the test lets go of the shop. Its clock stands still (`StillClock`):
/// a sale and its void, or a sale and the day's REPORT, stay in one business day.
struct ShopWithPairedTill {
    static let token = "s3cret"
    let directory: TemporaryDirectory
    var work: String { directory.path }
    let arguments: [String]
    let clock: StillClock
    let environment: [String: String]
    let server: ExecutableServer

    init(_ name: String) async throws {
        directory = TemporaryDirectory(name)
        clock = try StillClock()
        environment = clock.environment.merging(["JUICE_MANAGER_TOKEN": Self.token]) { $1 }
        let work = directory.path
        arguments = ["--data", work + "/data"]
        server = try ExecutableServer(arguments, environment: environment)
        try await pairTill(server, token: Self.token, configHome: work + "/config")
    }

    /// The server again, on its data and its port, once `server` was stopped.
    func restart() throws -> ExecutableServer {
        try ExecutableServer.restart(arguments, port: server.port, environment: environment)
    }

    /// The shell command that runs the paired till full screen (no colours) on the server's
    /// port, its state and credential under `work`; `token` sets JUICE_MANAGER_TOKEN for it, in
    /// env's words (["-u", "JUICE_MANAGER_TOKEN"] unsets it).
    func tillCommand(id: String, token: [String]) -> String {
        (["env"] + token + ["XDG_STATE_HOME=" + work + "/state", "XDG_CONFIG_HOME=" + work + "/config", "TERM=xterm",
                            TillTests.till, "--port", String(server.port), "--till-id", id, "--no-color"])
            .map(Executables.shellQuoted).joined(separator: " ")
    }
}

/// juice-till piped on an in-memory server, `orders` its standard input and its state under
/// `work`: returned once it exited (or the wait gave up), its output whole; the caller stops it.
func pipedTill(_ orders: String, tillID: String, in work: String) async throws -> ChildProcess {
    let server = try ExecutableServer(["--in-memory"])
    defer { server.stop() }
    let path = work + "/orders"
    #expect(FileManager.default.createFile(atPath: path, contents: Data(orders.utf8)))
    let process = try ChildProcess(TillTests.till, ["--port", String(server.port), "--till-id", tillID], directory: work,
                                   environment: ["XDG_STATE_HOME": work + "/state"], stdinPath: path)
    #expect(await settles { !process.isRunning }, "\(process.output) \(process.errors)")
    return process
}

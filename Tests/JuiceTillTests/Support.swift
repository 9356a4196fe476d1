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

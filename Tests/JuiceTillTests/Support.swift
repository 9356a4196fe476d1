@_exported import JuiceTestSupport
import JuiceClient

/// A client on `server`'s port, for the server's own view (its stats) beside what the till says.
func client(_ server: ExecutableServer) -> JuiceClient {
    JuiceClient(configuration: JuiceClient.Configuration(port: UInt16(server.port)))
}

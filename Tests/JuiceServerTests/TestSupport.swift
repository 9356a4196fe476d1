import JuiceCore
@testable import JuiceServer
@_exported import JuiceTestSupport

/// An in-process server on a free port (port 0), stopped by `stop()`.
struct RunningServer {
    let server: Server
    let port: Int

    static func start(_ configure: (inout ServerConfig) -> Void = { _ in }) async throws -> RunningServer {
        var config = ServerConfig()
        config.port = 0
        config.httpPort = 0
        config.dataDirectory = nil
        configure(&config)
        let server = try Server.make(config)
        let port = try await server.start()
        return RunningServer(server: server, port: port)
    }

    func client(readGreeting: Bool = true) throws -> LineClient {
        try LineClient(port: port, readGreeting: readGreeting)
    }

    func stop() async {
        await server.stop()
    }
}

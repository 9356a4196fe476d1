import JuiceCore
import JuiceDomain
import JuiceStorage
import JuicePlatform
import JuiceLog
import JuiceLoop
import JuiceServices
import JuiceLine
import JuiceHTTP
@testable import JuiceServer
@_exported import JuiceTestSupport

/// An in-process server on a free port (port 0). Tests use `with`, which stops it however the
/// test ends; `start` and `stop` are for a test about stopping.
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

    /// Runs `body` against a fresh server and stops the server afterwards, also when `body`
    /// throws: a failed test must not leave a server listening in the test process.
    static func with<Result>(_ configure: (inout ServerConfig) -> Void = { _ in },
                             _ body: (RunningServer) async throws -> Result) async throws -> Result {
        let running = try await start(configure)
        do {
            let result = try await body(running)
            await running.stop()
            return result
        } catch {
            await running.stop()
            throw error
        }
    }

    func client(readGreeting: Bool = true) throws -> LineClient {
        try LineClient(port: port, readGreeting: readGreeting)
    }

    func stop() async {
        await server.stop()
    }
}

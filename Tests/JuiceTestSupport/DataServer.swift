import Foundation

/// The built server on a data directory of its own (`data`, inside `dir`), with the client
/// `connect` opens after every start: `restart` stops the server (or kills it) and starts it
/// again on the same data and port. `ClockedServer` is one whose clock the test moves too.
public class DataServer {
    public let dir: TemporaryDirectory
    /// The server's `--data`.
    public let data: String
    /// What every start's arguments begin with: the data directory, then the test's own.
    private let fixed: [String]
    private let environment: [String: String]
    private let connect: (ExecutableServer) throws -> LineClient
    public private(set) var arguments: [String]
    public private(set) var server: ExecutableServer
    public private(set) var client: LineClient

    /// Starts it with `fixed` and `extra` after `--data`, and `environment`.
    public init(_ fixed: [String] = [], _ extra: [String] = [], in dir: TemporaryDirectory = TemporaryDirectory(),
                environment: [String: String] = [:],
                connect: @escaping (ExecutableServer) throws -> LineClient = { try $0.client() }) throws {
        self.dir = dir
        data = dir.path + "/data"
        self.fixed = ["--data", data] + fixed
        self.environment = environment
        self.connect = connect
        arguments = self.fixed + extra
        server = try ExecutableServer(arguments, environment: environment)
        client = try connect(server)
    }

    /// Stops the server (SIGKILL with `crash`; nothing if it has ended already) and starts it
    /// again, with `extra` if given.
    public func restart(_ extra: [String]? = nil, crash: Bool = false) throws {
        if crash { server.kill9() } else { server.stop() }
        if let extra { arguments = fixed + extra }
        server = try ExecutableServer.restart(arguments, port: server.port, environment: environment)
        client = try connect(server)
    }
}

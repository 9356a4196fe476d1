import Foundation

/// The built server with its clock in a file the test writes (the debug build's
/// `JUICE_TEST_CLOCK`) and its data in a directory of its own, with the client `connect` opens
/// after every start: `at` moves the clock, `restart` stops (or kills) the server and starts it
/// again on the same data and ports.
public final class ClockedServer {
    public let dir = TemporaryDirectory()
    public let clock: String
    /// What every start's arguments begin with: the data directory, then the test's own.
    private let fixed: [String]
    private let environment: [String: String]
    private let connect: (ExecutableServer) throws -> LineClient
    public private(set) var arguments: [String]
    public private(set) var server: ExecutableServer
    public private(set) var client: LineClient

    /// Starts it at `time` with `fixed` and `extra` after `--data`, and `environment` besides
    /// the clock's.
    public init(_ fixed: [String] = [], _ extra: [String], at time: Int64, environment: [String: String] = [:],
                connect: @escaping (ExecutableServer) throws -> LineClient) throws {
        clock = dir.path + "/clock"
        self.fixed = ["--data", dir.path + "/data"] + fixed
        self.environment = environment.merging(["JUICE_TEST_CLOCK": clock]) { _, clock in clock }
        self.connect = connect
        arguments = self.fixed + extra
        try String(time).write(toFile: clock, atomically: true, encoding: .utf8)
        server = try ExecutableServer(arguments, environment: self.environment)
        client = try connect(server)
    }

    public func at(_ time: Int64) throws {
        try String(time).write(toFile: clock, atomically: true, encoding: .utf8)
    }

    /// Stops the server (SIGKILL with `crash`) and starts it again, with `extra` if given.
    public func restart(_ extra: [String]? = nil, crash: Bool = false) throws {
        if crash { server.kill9() } else { server.stop() }
        if let extra { arguments = fixed + extra }
        server = try ExecutableServer.restart(arguments, port: server.port, environment: environment)
        client = try connect(server)
    }
}

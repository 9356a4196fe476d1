import Foundation

/// The built server with its clock in a file the test writes (the debug build's
/// `JUICE_TEST_CLOCK`), on data of its own (`DataServer`: its client, `restart`): `at` moves
/// the clock.
public final class ClockedServer: DataServer {
    public let clock: String

    /// Starts it at `time` with `fixed` and `extra` after `--data`, and `environment` besides
    /// the clock's.
    public init(_ fixed: [String] = [], _ extra: [String], at time: Int64, environment: [String: String] = [:],
                connect: @escaping (ExecutableServer) throws -> LineClient) throws {
        let dir = TemporaryDirectory()
        clock = dir.path + "/clock"
        try String(time).write(toFile: clock, atomically: true, encoding: .utf8)
        try super.init(fixed, extra, in: dir, environment: environment.merging(["JUICE_TEST_CLOCK": clock]) { _, clock in clock },
                       connect: connect)
    }

    public func at(_ time: Int64) throws {
        try String(time).write(toFile: clock, atomically: true, encoding: .utf8)
    }
}

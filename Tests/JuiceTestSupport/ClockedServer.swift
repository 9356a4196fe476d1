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

/// A `JUICE_TEST_CLOCK` file that stands at the real time it was made, and stays there: for a
/// test that reads what "today" holds (REPORT, a till's orders_today, today's sales) on a
/// server that would otherwise use the real clock. That clock can cross the shop's day start
/// (04:00 local) between a sale and the read, and the sale is then yesterday's. The real time,
/// not a fixed date: a date that falls behind the real clock ages whatever is measured by it.
/// Its file goes with it.
public final class StillClock: Sendable {
    private let directory = TemporaryDirectory("juice-clock")
    public let path: String
    /// The environment that gives a server this clock.
    public var environment: [String: String] { ["JUICE_TEST_CLOCK": path] }

    public init() throws {
        path = directory.path + "/clock"
        try String(Int64(Date().timeIntervalSince1970)).write(toFile: path, atomically: true, encoding: .utf8)
    }
}

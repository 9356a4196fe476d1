import Foundation
import Glibc
import Testing

/// The real `juice-server` binary, started and spoken to as a user would.
@Suite(.onOwnThreads) struct ExecutableTests {
    @Test func servesOverTCPAndExitsCleanlyOnSIGTERM() async throws {
        let dir = temporaryDirectory()
        defer { removeTemporary(dir) }
        let server = try ExecutableServer(["--in-memory"])
        #expect(server.logShows("juice-server listening on 127.0.0.1:\(server.port)"))
        let cashier = try server.client()
        let display = try server.client()
        #expect(try display.command("PING") == "OK PONG")
        #expect(try cashier.command("ORDER mango-kiwi 2") == "OK ORDER mango-kiwi 2 seq=1 mango=6 kiwi=8 amount=11000")
        #expect(try display.nextEvent() == "EVENT STOCK seq=1 mango=6 kiwi=8")
        server.signal(SIGTERM)
        #expect(try display.nextEvent("EVENT BYE") == "EVENT BYE shutting down")
        #expect(server.waitForExit() == 0)
        #expect(server.logShows("connect 127.0.0.1:"))
    }

    @Test func helpAndVersion() throws {
        let (helpStatus, help) = try ExecutableServer.run(["--help"])
        #expect(helpStatus == 0)
        for flag in ["--host", "--port", "--data", "--in-memory", "--initial-stock", "--max-clients", "--reserved-clients", "--max-clients-per-address", "--max-output-bytes",
                     "--idle-timeout", "--journal-max-bytes", "--manager-token-file", "--menu", "--print-menu", "--version"] {
            #expect(help.contains(flag), "--help does not mention \(flag)")
        }
        let (versionStatus, version) = try ExecutableServer.run(["--version"])
        #expect(versionStatus == 0 && version.hasPrefix("juice-server 1."))
    }

    @Test(arguments: [["--port", "70000"], ["--port", "notaport"], ["--port"], ["--frobnicate"], ["--initial-stock", "-1"],
                      ["--manager-token", "x"], ["--max-clients", "0"], ["--max-clients-per-address", "-1"], ["--reserved-clients", "x"], ["--host", "0.0.0.0"]])
    func badFlagsPrintUsageAndCreateNothing(arguments: [String]) throws {
        let dir = temporaryDirectory()
        defer { removeTemporary(dir) }
        let (status, output) = try ExecutableServer.run(arguments, directory: dir)
        #expect(status > 0 && status < 128, "\(arguments) exited \(status)")
        #expect(output.lowercased().contains("usage"), "\(arguments): \(output)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir).isEmpty)
    }

    /// A port already taken (the line port, or the HTTP port after the line port was bound) is
    /// a clear error and exit status 1. It used to crash on the HTTP port: the line listener,
    /// made but not started, was released with its dispatch source inactive (SIGILL).
    @Test(arguments: ["--port", "--http-port"])
    func aPortInUseIsAClearErrorNotACrash(taken flag: String) throws {
        let holder = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(holder) }
        let port = try #require(bindLoopbackPortZero(holder, listenBacklog: 1), "cannot listen: errno \(errno)")
        let other = flag == "--port" ? "--http-port" : "--port"
        let (status, output) = try ExecutableServer.run(["--in-memory", flag, "\(port)", other, "0"])
        #expect(status == 1, "exited \(status): \(output)")
        #expect(output.contains("bind 127.0.0.1:\(port) failed"), "\(output)")
        #expect(!output.contains("listening on"), "\(output)")
    }

    @Test func aRestartedServerBindsTheSamePortAtOnce() throws {
        let first = try ExecutableServer(["--in-memory"])
        let port = first.port
        let clients = try (0..<5).map { _ in try first.client() }
        for c in clients { #expect(try c.command("PING") == "OK PONG") }
        #expect(first.terminate() == 0)
        let second = try ExecutableServer(["--in-memory", "--port", "\(port)"])
        #expect(try second.client().command("PING") == "OK PONG")
        #expect(second.terminate() == 0)
    }
}

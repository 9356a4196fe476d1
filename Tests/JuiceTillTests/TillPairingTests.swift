import Foundation
import Glibc
import Testing
import JuiceTill

/// juice-till as a paired till (issue 31), piped: `--pair CODE` pairs once and keeps the
/// credential in a file of the user's (0600); later runs sign in with it; after the manager
/// revokes the till, its orders say so plainly and nothing is sold.
@Suite(.serialized, .onOwnThreads) struct TillPairingTests {
    static let till = Executables.path("juice-till")

    /// Runs juice-till piped with `orders` on stdin until it ends; its output, errors and status.
    static func run(_ arguments: [String], orders: String, work: String, name: String) async throws -> (output: String, errors: String, status: Int32?) {
        let input = work + "/\(name).in"
        #expect(FileManager.default.createFile(atPath: input, contents: Data(orders.utf8)))
        let process = try ChildProcess(till, arguments, directory: work,
                                       environment: ["XDG_STATE_HOME": work + "/state", "XDG_CONFIG_HOME": work + "/config"],
                                       stdinPath: input)
        defer { process.stop() }
        #expect(await settles { !process.isRunning }, "\(process.output) \(process.errors)")
        return (process.output, process.errors, process.exitStatus)
    }

    @Test(.timeLimit(.minutes(3)))
    func pairOnceThenSellWithTheKeptCredentialUntilRevoked() async throws {
        let directory = TemporaryDirectory("juice-till-pairing"), work = directory.path
        // A clock that stands still: "orders today" must not cross a business day mid-test.
        let clock = try StillClock()
        let server = try ExecutableServer(["--in-memory"], environment: clock.environment.merging(["JUICE_MANAGER_TOKEN": "s3cret"]) { $1 })
        defer { server.stop() }
        let manager = try server.client()
        defer { manager.close() }
        #expect(manager.ask("AUTH s3cret").hasPrefix("OK"))
        let port = ["--port", String(server.port), "--till-id", "paired1"]

        // Not paired: the server (with a token) refuses its orders.
        let stranger = try await Self.run(port, orders: "kiwi\n", work: work, name: "stranger")
        #expect(stranger.output.hasPrefix("error FORBIDDEN"), "\(stranger.output)")

        let made = manager.ask("TILLS NEW Counter")
        let code = try #require(made.split(separator: " ").first { $0.hasPrefix("code=") }?.dropFirst(5), "\(made)")
        let paired = try await Self.run(port + ["--pair", String(code)], orders: "kiwi\n", work: work, name: "pair")
        #expect(paired.output.hasPrefix("made kiwi 1 "), "\(paired.output) \(paired.errors)")
        #expect(paired.errors.contains("paired as till 1 (Counter)"), "\(paired.errors)")
        let file = work + "/config/juice-till/credential"
        #expect(readText(file).hasPrefix("1-"))
        var info = stat()
        #expect(stat(file, &info) == 0 && info.st_mode & 0o777 == 0o600, "mode \(String(info.st_mode & 0o777, radix: 8))")

        // A later start reads the kept credential: no code needed.
        let later = try await Self.run(port, orders: "kiwi 2\n", work: work, name: "later")
        #expect(later.output.hasPrefix("made kiwi 2 ") && later.status == 0, "\(later.output) \(later.errors)")
        #expect(manager.ask("TILLS").contains("orders_today=2"))

        // Revoked: each order says so plainly, exit status 1, and nothing is sold.
        #expect(manager.ask("TILLS REVOKE 1").hasPrefix("OK TILLS REVOKE"))
        let stock = manager.ask("STOCK")
        let revoked = try await Self.run(port, orders: "kiwi\nkiwi\n", work: work, name: "revoked")
        let lines = revoked.output.split(separator: "\n")
        #expect(lines.count == 2 && lines.allSatisfy { $0.hasPrefix("error this till was removed by the manager; nothing was sold") },
                "\(revoked.output)")
        #expect(revoked.output.contains("juice-till --pair CODE") && revoked.status == 1)
        #expect(manager.ask("STOCK") == stock)
    }

    /// `--credential-file` names the file; one that is missing (and no `--pair`) is an error
    /// that says how to pair, not a quiet anonymous till.
    @Test(.timeLimit(.minutes(2)))
    func aNamedCredentialFileMustExist() async throws {
        let directory = TemporaryDirectory("juice-till-credential-file"), work = directory.path
        let missing = try await Self.run(["--port", "1", "--credential-file", work + "/nope"], orders: "", work: work, name: "missing")
        #expect(missing.status == 1 && missing.errors.contains("pair first with --pair CODE"), "\(missing.errors)")
        try TillCredentialFile.write("7-abc", to: work + "/kept/credential")
        #expect(try TillCredentialFile.read(work + "/kept/credential") == "7-abc")
        #expect(TillCredentialFile.defaultPath(environment: ["XDG_CONFIG_HOME": "/x"]) == "/x/juice-till/credential")
        #expect(TillCredentialFile.defaultPath(environment: ["HOME": "/h"]) == "/h/.config/juice-till/credential")
        let help = try Executables.run(Self.till, ["--help"])
        #expect(help.output.contains("--pair CODE") && help.output.contains("--credential-file PATH"), "\(help.output)")
    }
}

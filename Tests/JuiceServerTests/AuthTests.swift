import Foundation
import Glibc
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
import Testing

/// The manager token: from the environment or a file, never on the command line.
extension HardeningTests {
    // MARK: - 7. Auth

    /// An in-memory server whose manager token comes from a file holding `contents`. The file
    /// is gone once the server listens: the server reads it only at start.
    static func serverWithTokenFile(_ contents: String) throws -> ExecutableServer {
        let dir = temporaryDirectory("juice-token-file")
        defer { removeTemporary(dir) }
        let file = dir + "/token"
        try contents.write(toFile: file, atomically: true, encoding: .utf8)
        return try ExecutableServer(["--in-memory", "--manager-token-file", file])
    }

    @Test func managerTokenFromTheEnvironmentGuardsRestockAndSet() throws {
        let server = try ExecutableServer(["--in-memory"], environment: ["JUICE_MANAGER_TOKEN": "s3cret"])
        let cashier = try server.peer()
        _ = cashier.nextLine()
        let display = try server.peer()
        _ = display.nextLine()
        #expect(cashier.ask("RESTOCK kiwi 5").hasPrefix("ERR FORBIDDEN "))
        #expect(cashier.ask("SET kiwi 3").hasPrefix("ERR FORBIDDEN "))
        // Permission comes before arguments.
        #expect(cashier.ask("RESTOCK durian -1").hasPrefix("ERR FORBIDDEN "))
        #expect(cashier.ask("set").hasPrefix("ERR FORBIDDEN "))
        // Orders need a paired till or the manager (issue 31); reads are open.
        #expect(cashier.ask("ORDER banana").hasPrefix("ERR FORBIDDEN ORDER needs a paired till"))
        #expect(cashier.ask("STOCK kiwi") == "OK STOCK seq=0 kiwi=10")
        #expect(cashier.ask("MENU").hasPrefix("OK MENU "))
        #expect(cashier.ask("STATS").hasPrefix("OK STATS clients=2"))
        // Three wrong tokens: each refused, the third closes the connection after its reply.
        let guesser = try server.peer()
        _ = guesser.nextLine()
        let guesserPort = guesser.localPort
        #expect(guesser.ask("AUTH wrong") == "ERR AUTH_FAILED wrong token")
        #expect(guesser.ask("AUTH s3cre") == "ERR AUTH_FAILED wrong token")
        #expect(guesser.ask("AUTH s3cret!") == "ERR AUTH_FAILED wrong token; 3 failures, closing")
        #expect(guesser.waitClosed())
        // The right token, on one connection only.
        #expect(cashier.ask("AUTH s3cret") == "OK AUTH")
        #expect(cashier.ask("ORDER banana") == "OK ORDER banana 1 seq=1 banana=8 amount=4000")
        #expect(display.nextLine() == .got("EVENT STOCK seq=1 banana=8"))
        #expect(cashier.ask("RESTOCK kiwi 5") == "OK RESTOCK seq=2 kiwi=15")
        #expect(cashier.ask("SET kiwi 3") == "OK SET seq=3 kiwi=3")
        #expect(display.ask("RESTOCK kiwi 1").hasPrefix("ERR FORBIDDEN "))
        // Read once the server stopped, which writes out every line it logged.
        #expect(server.terminate() == 0)
        let log = server.log()
        #expect(log.contains("AUTH refused for 127.0.0.1:\(guesserPort)"))
        #expect(log.contains("FORBIDDEN for 127.0.0.1:\(cashier.localPort)"))
        #expect(log.contains("FORBIDDEN for 127.0.0.1:\(display.localPort)"))
        #expect(!log.contains("s3cret"), "the log shows the token")
    }

    @Test func managerTokenFromAFile() throws {
        let server = try Self.serverWithTokenFile("s3cret\n")
        let c = try server.peer()
        _ = c.nextLine()
        #expect(c.ask("RESTOCK kiwi 1").hasPrefix("ERR FORBIDDEN "))
        #expect(c.ask("AUTH s3cret\n") == "OK AUTH" || c.ask("PING") == "OK PONG")
        #expect(c.ask("RESTOCK kiwi 1") == "OK RESTOCK seq=1 kiwi=11")
        let other = try server.peer()
        _ = other.nextLine()
        #expect(other.ask("AUTH nope") == "ERR AUTH_FAILED wrong token")
        #expect(other.ask("SET kiwi 1").hasPrefix("ERR FORBIDDEN "))
    }

    @Test func withoutATokenLoopbackIsManagerAndAUTHSaysSo() throws {
        let server = try ExecutableServer(["--in-memory"])
        let c = try server.peer()
        _ = c.nextLine()
        #expect(c.ask("AUTH x") == "ERR AUTH_FAILED no manager token is configured")
        #expect(c.ask("RESTOCK kiwi 1") == "OK RESTOCK seq=1 kiwi=11")
        #expect(c.ask("AUTH y") == "ERR AUTH_FAILED no manager token is configured")
        #expect(c.ask("AUTH z") == "ERR AUTH_FAILED no manager token is configured")
        #expect(c.ask("PING") == "OK PONG")  // not counted as failures: still connected
    }

    @Test func publicAddressNeedsATokenAndTheTokenNeverGoesOnTheCommandLine() throws {
        let (status, output) = try ExecutableServer.run(["--in-memory", "--host", "0.0.0.0", "--port", "0"])
        #expect(status != 0)
        #expect(output.contains("JUICE_MANAGER_TOKEN"), "\(output)")
        let (status2, output2) = try ExecutableServer.run(["--in-memory", "--manager-token", "s3cret", "--port", "0"])
        #expect(status2 != 0)
        #expect(output2.lowercased().contains("usage"), "\(output2)")
        let (status3, output3) = try ExecutableServer.run(["--in-memory", "--manager-token=s3cret", "--port", "0"])
        #expect(status3 != 0 && output3.lowercased().contains("usage"))
        let server = try ExecutableServer(["--in-memory", "--host", "0.0.0.0"], environment: ["JUICE_MANAGER_TOKEN": "s3cret"])
        #expect(server.log().contains("listening on 0.0.0.0:\(server.port)"))
        let c = try server.peer()
        _ = c.nextLine()
        #expect(c.ask("PING") == "OK PONG")
        #expect(c.ask("SET kiwi 1").hasPrefix("ERR FORBIDDEN "))
        #expect(c.ask("AUTH s3cret") == "OK AUTH")
        #expect(c.ask("SET kiwi 1") == "OK SET seq=1 kiwi=1")
    }
}

import Glibc
import JuiceTestSupport
import Testing

/// `juice-bench chaos` for real: it starts the built juice-server itself, kills and restarts it
/// while its tills sell, and must pass; and against a server that forgets everything on a
/// restart (`--in-memory`) it must say FAIL, naming the broken promises. Short runs with few
/// kills: the checks wait for conditions, never for speed.
@Suite(.serialized, .onOwnThreads) struct ChaosRunTests {
    static var bench: String { Executables.path("juice-bench") }

    func chaos(_ arguments: [String]) throws -> (status: Int32, output: String) {
        try Executables.run(Self.bench, ["chaos", "--server", ExecutableServer.binary, "--tills", "4", "--duration", "3",
                                         "--think", "0.02", "--resend-http", "50"] + arguments)
    }

    /// Check lines as the report prints them: "  ok   <name>: ..." or "  FAIL <name>: ...".
    func verdicts(_ output: String) -> [String: Bool] {
        var out: [String: Bool] = [:]
        for line in output.split(separator: "\n") {
            for (prefix, ok) in [("  ok   ", true), ("  FAIL ", false)] where line.hasPrefix(prefix) {
                if let colon = line.firstIndex(of: ":") { out[String(line.dropFirst(prefix.count)[..<colon])] = ok }
            }
        }
        return out
    }

    @Test func aShortRunWithKillsPasses() throws {
        let (status, output) = try chaos(["--kills", "2", "--seed", "7"])
        #expect(status == 0, "\(output)")
        #expect(output.contains("juice-bench chaos: PASS"), "\(output)")
        let checks = verdicts(output)
        #expect(checks.count == 6 && checks.values.allSatisfy { $0 }, "\(output)")
        #expect(output.contains("kills         2 SIGKILL + restart"), "\(output)")
    }

    /// A server that keeps nothing on disk loses every acknowledged order at the first kill:
    /// the run must fail, and the failures must be the ones about lost and re-applied orders.
    @Test func aServerThatForgetsOnRestartFails() throws {
        let (status, output) = try chaos(["--kills", "1", "--seed", "8", "--in-memory"])
        #expect(status == 1, "\(output)")
        #expect(output.contains("juice-bench chaos: FAIL"), "\(output)")
        let checks = verdicts(output)
        #expect(checks["every acknowledged order applied exactly once"] == false, "\(output)")
        #expect(checks["a re-sent key gets its first answer"] == false, "\(output)")
        #expect(checks["every order got a definite answer"] == true, "\(output)")
        // A failed run keeps its files for a look; this one is not needed.
        if let kept = output.split(separator: "\n").first(where: { $0.hasPrefix("  kept") }),
           let path = kept.split(separator: " ").dropFirst().first, path.hasPrefix("/") {
            removeTemporary(String(path))
        }
    }

    @Test func noServerIsReportedAsCannotRun() throws {
        let (status, output) = try Executables.run(Self.bench, ["chaos", "--server", "/nonexistent/juice-server"])
        #expect(status == 1 && output.contains("no juice-server at /nonexistent/juice-server"), "\(output)")
    }
}

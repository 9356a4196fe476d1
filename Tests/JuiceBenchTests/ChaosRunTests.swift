import Foundation
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
        #expect(checks.count == 9 && checks.values.allSatisfy { $0 }, "\(output)")
        #expect(output.contains("kills         2 SIGKILL + restart"), "\(output)")
        // The tills voided some of their own sales (10% by default), and the money was counted.
        let voids = output.split(separator: "\n").first { $0.hasPrefix("  voids ") }.map(String.init) ?? ""
        #expect(checks["every acknowledged void applied exactly once"] == true && !voids.isEmpty && !voids.contains(": 0 voided"), "\(output)")
        #expect(checks["the money adds up"] == true && output.contains("  money         takings 0 -> "), "\(output)")
    }

    /// Issue 35: backups taken with `juice-server backup` while the tills sell through kills and
    /// compactions (a 20 KB journal compacts every few hundred changes); each is restored,
    /// started, and holds every change acknowledged before it was asked for, exactly once.
    @Test func backupsTakenThroughKillsAndCompactionsRestore() throws {
        let (status, output) = try chaos(["--kills", "2", "--seed", "12", "--backups", "3", "--flood", "0",
                                          "--server-arg", "--journal-max-bytes", "--server-arg", "20000"])
        #expect(status == 0, "\(output)")
        let checks = verdicts(output)
        #expect(checks.count == 10 && checks.values.allSatisfy { $0 }, "\(output)")
        let line = output.split(separator: "\n").first { $0.contains("every backup restores what was acknowledged before it") } ?? ""
        #expect(line.contains("3 taken") && line.contains("each dup with its first answer"), "\(output)")
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
        // Its tills' pairings are gone too: their orders after the kill are refused (AUTH_FAILED).
        #expect(checks["every order got a definite answer"] == false, "\(output)")
        // The sales it acknowledged are not in the restarted store's report.
        #expect(checks["the money adds up"] == false, "\(output)")
        // A failed run keeps its files for a look; this one is not needed.
        if let kept = output.split(separator: "\n").first(where: { $0.hasPrefix("  kept") }),
           let path = kept.split(separator: " ").dropFirst().first, path.hasPrefix("/") {
            removeTemporary(String(path))
        }
    }

    /// The server runs on the ports asked for, with a manager token: its tills are paired and
    /// sell with their credentials, the anonymous flood is refused and the till's own flood only
    /// refused for stock; the verdict says the peak RSS; `--keep` keeps the log and the data.
    @Test func aRunOnChosenPortsWithPairedTillsKeepsItsFiles() throws {
        let (line, http) = (try freePort(), try freePort())
        let (status, output) = try chaos(["--kills", "1", "--seed", "9", "--flood", "3000", "--flood-bursts", "1", "--keep",
                                          "--port", String(line), "--http-port", String(http)])
        let directory = try #require(keptDirectory(output), "\(output)")
        defer { removeTemporary(directory) }
        #expect(status == 0 && verdicts(output).values.allSatisfy { $0 }, "\(output)")
        let log = readText(directory + "/server.log")
        #expect(log.contains("listening on 127.0.0.1:\(line)") && log.contains("127.0.0.1:\(http)/"), "\(log)")
        #expect(output.contains("anonymous 3000 keyed orders sent: FORBIDDEN 3000"), "\(output)")
        #expect(output.contains("till 3000 keyed orders sent: OUT_OF_STOCK 3000"), "\(output)")
        #expect(output.contains("server RSS    max "), "\(output)")
        #expect(!((try? FileManager.default.contentsOfDirectory(atPath: directory + "/data")) ?? []).isEmpty)
    }

    /// `--keep` with `--fill-disk`: the data lived on a tmpfs that is unmounted at the end; it
    /// is copied out first, so the kept directory holds the journal (it was empty before).
    @Test(.enabled(if: geteuid() == 0, "--fill-disk mounts a tmpfs: needs root (CI runs as root)"))
    func keepWithFillDiskKeepsTheData() throws {
        let (status, output) = try chaos(["--kills", "1", "--seed", "10", "--fill-disk", "--keep", "--flood", "0"])
        guard !output.contains("disk fills    skipped") else {
            // No tmpfs could be mounted here (a container without the right): nothing to keep.
            print("skipped: \(output.split(separator: "\n").first { $0.contains("disk fills") } ?? "")")
            return
        }
        let directory = try #require(keptDirectory(output), "\(output)")
        defer { removeTemporary(directory) }
        #expect(status == 0, "\(output)")
        let files = (try? FileManager.default.contentsOfDirectory(atPath: directory + "/data")) ?? []
        #expect(files.contains("journal"), "kept data: \(files)")
        #expect(!readText("/proc/self/mounts").contains(directory), "the tmpfs is unmounted")
    }

    /// The directory of the report's "kept" line.
    func keptDirectory(_ output: String) -> String? {
        guard let kept = output.split(separator: "\n").first(where: { $0.hasPrefix("  kept") }),
              let path = kept.split(separator: " ").dropFirst().first, path.hasPrefix("/") else { return nil }
        return String(path)
    }

    /// A port that was free a moment ago (bound to port 0, then closed).
    func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        guard let port = bindLoopbackPortZero(fd) else { throw TestError("no free port") }
        return port
    }

    @Test func noServerIsReportedAsCannotRun() throws {
        let (status, output) = try Executables.run(Self.bench, ["chaos", "--server", "/nonexistent/juice-server"])
        #expect(status == 1 && output.contains("no juice-server at /nonexistent/juice-server"), "\(output)")
    }
}

import Testing
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

/// The flags that take a whole number: each sets its value, and refuses one outside its range
/// (or no value) with a usage message that names the flag and the range.
@Suite(.onOwnThreads) struct CommandLineOptionsTests {
    @Test func everyNumberFlagSetsItsValue() throws {
        let parsed = CommandLineOptions.parse(["--port", "0", "--http-port", "9", "--initial-stock", "0", "--max-clients", "7",
                                               "--max-clients-per-address", "2", "--max-output-bytes", "1024",
                                               "--idle-timeout", "5", "--journal-max-bytes", "2048"])
        guard case .success(.run(let c)) = parsed else {
            Issue.record("not a run: \(parsed)")
            return
        }
        #expect(c.port == 0 && c.httpPort == 9 && c.initialStock == 0 && c.initialStockOverridesMenu)
        #expect(c.maxClients == 7 && c.maxClientsPerAddress == 2 && c.maxOutputBytes == 1024)
        #expect(c.idleTimeoutSeconds == 5 && c.journalMaxBytes == 2048)
        guard case .success(.run(let defaults)) = CommandLineOptions.parse([]) else {
            Issue.record("the defaults do not parse")
            return
        }
        // A shop's defaults (README, "Capacity"): a share per address, a reserve, an idle timeout.
        #expect(!defaults.initialStockOverridesMenu && defaults.maxClientsPerAddress == 32 && defaults.idleTimeoutSeconds == 300)
        #expect(defaults.reservedClients == 64 && defaults.maxClients == 10_000)
        // 0 turns the share and the timeout off; the reserve may be 0.
        guard case .success(.run(let off)) = CommandLineOptions.parse(["--max-clients-per-address", "0", "--idle-timeout", "0",
                                                                       "--reserved-clients", "0"]) else {
            Issue.record("0 is refused")
            return
        }
        #expect(off.maxClientsPerAddress == nil && off.idleTimeoutSeconds == nil && off.reservedClients == 0)
    }

    /// `--allow-host` is repeatable, lowercased, and takes host names only.
    @Test func allowHostCollectsNames() {
        guard case .success(.run(let c)) = CommandLineOptions.parse(["--allow-host", "Shop.Local", "--allow-host", "till-3.lan"]) else {
            Issue.record("refused")
            return
        }
        #expect(c.allowedHosts == ["shop.local", "till-3.lan"])
        for bad in ["", "evil.example:80", "a b", "http://x"] {
            guard case .failure(let error) = CommandLineOptions.parse(["--allow-host", bad]) else {
                Issue.record("'\(bad)' was taken")
                continue
            }
            #expect(error.description.contains("--allow-host"))
        }
    }

    /// The top of each range is accepted: 2^40 has 13 digits (a 12-digit cap used to refuse it).
    @Test func theLargestValuesInRangeAreAccepted() {
        let parsed = CommandLineOptions.parse(["--journal-max-bytes", "1099511627776", "--max-output-bytes", "17179869184"])
        guard case .success(.run(let c)) = parsed else {
            Issue.record("refused: \(parsed)")
            return
        }
        #expect(c.journalMaxBytes == 1 << 40 && c.maxOutputBytes == 1 << 34)
    }

    @Test(arguments: [
        (["--port", "65536"], "--port must be 0 to 65535, not '65536'"),
        (["--http-port", "-1"], "--http-port must be 0 to 65535, not '-1'"),
        (["--max-clients-per-address", "-1"], "--max-clients-per-address must be 0 to 1000000, not '-1'"),
        (["--reserved-clients", "1000001"], "--reserved-clients must be 0 to 1000000, not '1000001'"),
        (["--idle-timeout", "1e3"], "--idle-timeout must be 0 to 31536000 seconds, not '1e3'"),
        (["--max-output-bytes", "1023"], "--max-output-bytes must be 1024 to 17179869184, not '1023'"),
        (["--journal-max-bytes", "99999999999999999999"], "--journal-max-bytes must be 1024 to 1099511627776, not '99999999999999999999'"),
        (["--journal-max-bytes"], "--journal-max-bytes needs a value"),
    ])
    func aNumberOutOfRangeIsAUsageError(arguments: [String], message: String) {
        guard case .failure(let error) = CommandLineOptions.parse(arguments) else {
            Issue.record("\(arguments) was accepted")
            return
        }
        #expect(error.description.hasPrefix("juice-server: \(message)\n"), "\(error.description)")
    }

    /// The dialect every juice program shares: `--flag=value` as well as `--flag value`, a flag
    /// without a value refuses one, no positional arguments, `--help` anywhere.
    @Test func flagsReadAsEveryJuiceProgramReadsThem() {
        guard case .success(.run(let c)) = CommandLineOptions.parse(["--port=0", "--http-port=9", "--host=::1",
                                                                     "--log-level=debug", "--in-memory"]) else {
            Issue.record("--flag=value refused")
            return
        }
        #expect(c.port == 0 && c.httpPort == 9 && c.host == "::1" && c.logLevel == .debug && c.dataDirectory == nil)
        for (arguments, message) in [(["--in-memory=yes"], "--in-memory takes no value, not 'yes'"),
                                     (["--port=+1"], "--port must be 0 to 65535, not '+1'"),
                                     (["./juice-data"], "unexpected argument './juice-data'"),
                                     (["--bogus"], "unknown option --bogus"),
                                     (["--manager-token=s3cret"], "there is no --manager-token flag")] {
            guard case .failure(let error) = CommandLineOptions.parse(arguments) else {
                Issue.record("\(arguments) was accepted")
                continue
            }
            #expect(error.description.hasPrefix("juice-server: \(message)"), "\(error.description)")
        }
        guard case .success(.help) = CommandLineOptions.parse(["--port", "x", "--help"]) else {
            Issue.record("--help after a bad flag is not help")
            return
        }
    }
}

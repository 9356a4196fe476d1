import Testing
@testable import juice_bench

/// `juice-bench chaos` flags: what parses, and what is refused with the chaos usage.
@Suite(.onOwnThreads) struct ChaosOptionsTests {
    @Test func flagsAndDefaults() throws {
        guard case .chaos(let defaults) = try parseSubcommand(["chaos"]) else { Issue.record("not chaos"); return }
        #expect(defaults == ChaosOptions())
        #expect(defaults.duration == 30 && defaults.tills == 4 && defaults.kills == 5 && defaults.flood.keysPerBurst == 20000 && !defaults.disk.fill)
        #expect(defaults.port == 0 && defaults.httpPort == 0 && defaults.disk.megabytes == 256)
        guard case .chaos(let o) = try parseSubcommand(["chaos", "--duration", "300", "--tills=8", "--kills", "25", "--flood", "120000",
                                                     "--flood-bursts", "3", "--fill-disk", "--seed", "42", "--server", "/x/juice-server",
                                                     "--initial-stock", "5000", "--think", "0", "--settle", "9", "--resend-http", "0",
                                                     "--keep", "--port", "7001", "--http-port", "7002", "--disk-mb", "128", "--server-arg", "--journal-max-bytes", "--server-arg", "200000",
                                                     "--backups", "4"]) else {
            Issue.record("not chaos")
            return
        }
        #expect(o.duration == 300 && o.tills == 8 && o.kills == 25 && o.flood.keysPerBurst == 120000 && o.flood.bursts == 3 && o.disk.fill)
        #expect(o.seed == 42 && o.server == "/x/juice-server" && o.initialStock == 5000 && o.think == 0 && o.ending.settle == 9)
        #expect(o.ending.resendHTTP == 0 && o.keep && o.serverArguments == ["--journal-max-bytes", "200000"])
        #expect(o.port == 7001 && o.httpPort == 7002 && o.disk.megabytes == 128 && o.backups == 4 && defaults.backups == 0)
    }

    @Test func refusedFlags() {
        for (arguments, message) in [
            (["--tills", "0"], "--tills needs a whole number between 1 and 200"),
            (["--backups", "101"], "--backups needs a whole number between 0 and 100"),
            (["--duration", "0"], "--duration needs a number of seconds above 0"),
            (["--in-memory", "--fill-disk"], "--fill-disk needs a data directory"),
            (["--server-arg", "--port"], "--server-arg --port: the chaos run sets the server's address, ports and data itself"),
            (["--host", "10.0.0.1"], "unknown option --host"),
            (["--port", "7001", "--http-port", "7001"], "--port and --http-port must differ"),
            (["--port", "70000"], "--port needs a whole number"),
        ] {
            do {
                _ = try parseSubcommand(["chaos"] + arguments)
                Issue.record("\(arguments) parsed")
            } catch {
                guard case .usage(let text, let subcommand) = error else { Issue.record("\(error)"); continue }
                #expect(text.hasPrefix(message) && subcommand == "chaos", "\(arguments): \(text)")
            }
        }
        #expect(usageText(for: "chaos").hasPrefix("usage: juice-bench chaos"))
    }
}

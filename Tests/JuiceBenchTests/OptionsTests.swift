import Testing
@testable import juice_bench

/// Command-line parsing: what parses, and the message and usage section of what does not.
@Suite(.onOwnThreads) struct OptionsTests {
    /// The usage error for `arguments`: its message and subcommand, or nil if they parse.
    func usageError(_ arguments: [String]) -> (message: String, subcommand: String?)? {
        do {
            _ = try parseSubcommand(arguments)
            return nil
        } catch {
            switch error {
            case .usage(let message, let subcommand): return (message, subcommand)
            case .fatal(let message): return ("fatal: \(message)", nil)
            }
        }
    }

    @Test func ordersFlagsInBothSpellingsAndTheCommonOnes() throws {
        guard case .orders(let o) = try parseSubcommand(["orders", "--conns", "7", "--pipeline=16", "--juice", "kiwi", "--json",
                                                      "--host", "10.0.0.2", "--port=7000", "--duration", "2.5",
                                                      "--warmup", "0", "--drain", "9", "--no-progress",
                                                      "--connect-burst", "3", "--connect-timeout", "4"]) else {
            Issue.record("not orders")
            return
        }
        #expect(o.connections == 7 && o.pipeline == 16 && o.juice == "kiwi")
        #expect(o.common.json && !o.common.progress)
        #expect(o.common.endpoint.description == "10.0.0.2:7000")
        #expect(o.common.duration == 2.5 && o.common.warmup == 0 && o.common.drain == 9)
        #expect(o.common.connectBurst == 3 && o.common.connectTimeout == 4)
    }

    @Test func defaults() throws {
        guard case .orders(let o) = try parseSubcommand(["orders"]) else { Issue.record("not orders"); return }
        #expect(o.connections == 50 && o.pipeline == 1 && o.juice == "mango-kiwi")
        #expect(o.common.endpoint.description == "127.0.0.1:7878")
        #expect(o.common.warmup == 1 && o.common.duration == 5 && o.common.drain == 3 && !o.common.json && o.common.progress)
        guard case .fanout(let f) = try parseSubcommand(["fanout"]) else { Issue.record("not fanout"); return }
        #expect(f.watchers == 1000 && f.juice == "mango-kiwi")
        guard case .events(let e) = try parseSubcommand(["events"]) else { Issue.record("not events"); return }
        #expect(e.fanout.watchers == 1000 && e.httpPort == 7879 && e.fanout.juice == "mango-kiwi" && e.common.endpoint.port == 7878)
    }

    @Test func eventsTakesStreamsTheHTTPPortAndTheCommonOptions() throws {
        guard case .events(let e) = try parseSubcommand(["events", "--streams", "30", "--http-port=8080", "--port", "9000",
                                                      "--juice", "kiwi", "--duration", "2", "--json"]) else {
            Issue.record("not events")
            return
        }
        #expect(e.fanout.watchers == 30 && e.httpPort == 8080 && e.fanout.juice == "kiwi")
        #expect(e.common.endpoint.port == 9000 && e.common.duration == 2 && e.common.json)
    }

    /// The server to measure, for every subcommand that measures replies; none by default
    /// (the run looks for the process listening on the port).
    @Test func theServerPidIsTakenByTheLoadSubcommands() throws {
        for arguments in [["orders"], ["fanout"], ["events"], ["raw", "--request", "PING"]] {
            let plan = loadPlan(try parseSubcommand(arguments + ["--server-pid", "4242"]))
            let defaultPlan = loadPlan(try parseSubcommand(arguments))
            #expect(plan?.common.serverPid == 4242, "\(arguments)")
            #expect(defaultPlan != nil && defaultPlan?.common.serverPid == nil, "\(arguments)")
        }
    }

    func loadPlan(_ command: Subcommand) -> LoadPlan? {
        switch command {
        case .orders(let o): return .orders(o)
        case .fanout(let o): return .fanout(o)
        case .events(let o): return .events(o)
        case .raw(let o): return .raw(o)
        default: return nil
        }
    }

    @Test func idleStreamsGoToTheHTTPPort() throws {
        guard case .idle(let o) = try parseSubcommand(["idle", "--pid", "7", "--streams", "50", "--http-port", "8081"]) else {
            Issue.record("not idle")
            return
        }
        #expect(o.eventStreams && o.connections == 50 && o.httpPort == 8081)
        #expect(o.streamEndpoint?.description == "127.0.0.1:8081")
        guard case .idle(let lines) = try parseSubcommand(["idle", "--pid", "7"]) else { Issue.record("not idle"); return }
        #expect(!lines.eventStreams && lines.streamEndpoint == nil)
    }

    @Test func helpForTheToolAndForEachSubcommand() throws {
        for arguments in [["--help"], ["-h"], ["help"]] {
            guard case .help(nil) = try parseSubcommand(arguments) else { Issue.record("\(arguments)"); continue }
        }
        for name in subcommandNames {
            guard case .help(name?) = try parseSubcommand(["help", name]) else { Issue.record("help \(name)"); continue }
            guard case .help(name?) = try parseSubcommand([name, "--conns", "3", "--help"]) else { Issue.record("\(name) --help"); continue }
            #expect(usageText(for: name).hasPrefix("usage: juice-bench \(name)"))
            // chaos starts its own server, history writes files: no --host/--port, no load options.
            #expect(name == "chaos" || name == "history" || usageText(for: name).contains("--port N"), "\(name) help lacks the common options")
        }
        #expect(usageText(for: nil).hasPrefix("usage: juice-bench <subcommand>"))
        guard case .selfTest = try parseSubcommand(["self-test"]) else { Issue.record("self-test"); return }
    }

    @Test(arguments: [
        ([], "missing subcommand", nil),
        (["frobnicate"], "unknown subcommand 'frobnicate'", nil),
        (["help", "frobnicate"], "unknown subcommand 'frobnicate'", nil),
        (["orders", "--bogus"], "unknown option --bogus", "orders"),
        (["orders", "stray"], "unexpected argument 'stray'", "orders"),
        (["orders", "--conns"], "--conns needs a value", "orders"),
        (["orders", "--conns", "0"], "--conns needs a whole number between 1 and \(Int.max), not '0'", "orders"),
        (["orders", "--conns", "many"], "--conns needs a whole number between 1 and \(Int.max), not 'many'", "orders"),
        (["orders", "--port", "70000"], "--port needs a whole number between 1 and 65535, not '70000'", "orders"),
        (["orders", "--pipeline=65537"], "--pipeline needs a whole number between 1 and 65536, not '65537'", "orders"),
        (["orders", "--duration", "0"], "--duration needs a number of seconds above 0, not '0'", "orders"),
        (["orders", "--warmup", "-1"], "--warmup needs a number of seconds, not '-1'", "orders"),
        (["orders", "--drain", "inf"], "--drain needs a number of seconds, not 'inf'", "orders"),
        (["orders", "--json=yes"], "--json takes no value, not 'yes'", "orders"),
        (["fanout", "--conns", "3"], "unknown option --conns", "fanout"),
        (["events", "--watchers", "3"], "unknown option --watchers", "events"),
        (["events", "--streams", "0"], "--streams needs a whole number between 1 and \(Int.max), not '0'", "events"),
        (["events", "--http-port", "0"], "--http-port needs a whole number between 1 and 65535, not '0'", "events"),
        (["events", "--http-port"], "--http-port needs a value", "events"),
        (["idle", "--pid", "9", "--streams", "5", "--conns", "5"],
         "give --conns N (line connections) or --streams N (event streams), not both", "idle"),
        (["idle", "--pid", "9", "--streams", "5", "--probe", "PING"],
         "--greeting-lines, --probe and --reply-skip are for line connections, not --streams", "idle"),
        (["idle", "--pid", "9", "--http-port", "8080"], "--http-port is for --streams N (idle event streams)", "idle"),
        (["idle", "--streams", "5"], "--pid PID (the server's process id) is required", "idle"),
        (["idle", "--conns", "5"], "--pid PID (the server's process id) is required", "idle"),
        (["idle", "--pid", "0"], "--pid needs a whole number between 1 and \(Int32.max), not '0'", "idle"),
        (["idle", "--pid", "9", "--greeting-lines", "0"],
         "with --greeting-lines 0 give --probe LINE (e.g. PING), so that each connection proves the server accepted it", "idle"),
        (["raw"], "--request LINE is required", "raw"),
        (["orders", "--server-pid", "0"], "--server-pid needs a whole number between 1 and \(Int32.max), not '0'", "orders"),
        (["raw", "--request", "PING", "--server-pid"], "--server-pid needs a value", "raw"),
        (["idle", "--pid", "9", "--server-pid", "9"], "unknown option --server-pid", "idle"),
        (["burst", "--server-pid", "9"], "unknown option --server-pid", "burst"),
        (["raw", "--request", "PING", "--watchers", "2"], "--watchers needs --event-match PREFIX (which watcher lines are events)", "raw"),
    ] as [([String], String, String?)])
    func badCommandLinesSayWhatIsWrong(arguments: [String], message: String, subcommand: String?) {
        let error = usageError(arguments)
        #expect(error?.message == message, "\(arguments)")
        #expect(error?.subcommand == subcommand, "\(arguments)")
    }
}

import JuiceCore
import JuicePlatform

/// `juice-bench chaos`: sets up a server of its own, lets tills, a display, the conductor (and
/// the flood) loose on it for the run's duration, then reads the store, re-sends the keys, and
/// hands everything to `ChaosCheck`. Returns the exit status (0 PASS, 1 FAIL).
enum ChaosRun {
    static func run(_ options: ChaosOptions) throws(BenchError) -> Int32 {
        let seed = options.seed ?? monotonicNow() ^ UInt64(getpid())
        let planRNG = ChaosRNG.stream(seed, 0)
        let runID = String(seed % 1_000_000_007, radix: 36)
        let binary = options.server ?? siblingExecutable("juice-server")
        guard access(binary, X_OK) == 0 else {
            throw BenchError.fatal("no juice-server at \(binary) (give its path with --server PATH)")
        }
        let directory = try makeRunDirectory()
        do {
            return try attack(options, seed: seed, planRNG: planRNG, runID: runID, binary: binary, directory: directory)
        } catch {
            throw BenchError.fatal(error.message + " (the server's log and data are kept in \(directory))")
        }
    }

    private static func attack(_ options: ChaosOptions, seed: UInt64, planRNG: ChaosRNG, runID: String, binary: String,
                               directory: String) throws(BenchError) -> Int32 {
        var planRNG = planRNG
        let dataPath = directory + "/data"
        mkdir(dataPath, 0o700)
        var diskNote = options.disk.fill ? "" : "off"
        var disk: DiskFiller?
        if options.disk.fill {
            switch DiskFiller.mount(on: dataPath, megabytes: options.disk.megabytes) {
            case .success(let mounted): disk = mounted
            case .failure(let why):
                // CI sets this: there a fill that cannot happen is a failure, not a quiet skip.
                if getenv("JUICE_REQUIRE_TOOLS").map({ String(cString: $0) }) == "1" {
                    throw BenchError.fatal("--fill-disk cannot run: \(why.message) (JUICE_REQUIRE_TOOLS=1)")
                }
                diskNote = "skipped (\(why.message))"
            }
        }
        // Runs after the server has stopped (the defer below it runs first): the data the run
        // leaves (kept with --keep, on FAIL, or on an error) is copied out of the tmpfs first.
        defer { disk?.unmountKeepingData() }

        // The run checks orders_refused exactly and fills a disk with refusals: every refusal must
        // count, so the lost-sales allowance (one address's refusals past 100 juices a minute
        // are left out of the figures, and unkeyed ones out of the journal) is lifted.
        // Every till and the flood connect from 127.0.0.1, up to 200 tills: no share per address.
        var flags = ["--host", "127.0.0.1", "--initial-stock", String(options.initialStock), "--log-level", "warn",
                     "--lost-sales-per-minute", "1000000", "--max-clients-per-address", "0"]
        flags += options.inMemory ? ["--in-memory"] : ["--data", dataPath]
        // A manager token of the run's own, as every shop has: writes only from paired tills.
        let token = String((0..<32).map { _ in "0123456789abcdef".randomElement()! })
        let server = ServerProcess(binary: binary, arguments: flags + options.serverArguments, logPath: directory + "/server.log",
                                   ports: (options.port, options.httpPort), environment: ["JUICE_MANAGER_TOKEN=\(token)"])
        try server.start(timeout: 60)
        defer { server.terminate() }
        let run = RunState(server: server, managerToken: token)

        // Setup: the menu, the one fruit kept at 0 (its juice is always refused), the start figures.
        let control = try ControlClient(run.line, token: token)
        let menu = try control.menu()
        let prices = try control.prices()
        let (choice, zeroFruit) = menu.chaosChoice
        if let zeroFruit {
            let reply = try control.command("SET \(zeroFruit) 0")
            guard reply.hasPrefix("OK SET") else { throw BenchError.fatal("SET \(zeroFruit) 0 was refused: \(reply)") }
        }
        let (before, day) = try control.figures(menu)

        // The display first, caught up with the setup, then everything else.
        let display = ChaosDisplay(run: run, fruits: Set(menu.fruits.map(\.name)))
        let displayThread = ChaosThread { display.follow() }
        _ = waitUntil(seconds: 30) { run.displaySeq.load(ordering: .relaxed) >= before.seq }

        let start = monotonicNow()
        let end = start + nanos(seconds: options.duration)
        let tills = (0..<options.tills).map { index in
            ChaosTill(index: index, via: index % 2 == 0 ? .tcp : .http, run: run, runID: runID, choice: choice,
                      thinkSeconds: options.think, voidPercent: options.voidPercent, seed: seed)
        }
        var credentials: [Int: String] = [:]
        for till in tills {
            till.credential = try ChaosPairing.pair("chaos till \(till.index + 1)", via: till.via, from: till.source, control: control, run: run)
            credentials[till.index] = till.credential
        }
        // Paired before anything is killed (pairing is setup, and a failure of it the run's).
        let floodTill = options.flood.isOn && choice.refusedJuice != nil
            ? try ChaosPairing.pair("chaos flooding till", via: .tcp, from: ChaosFlood.tillSource, control: control, run: run) : ""
        let tillThreads = tills.map { till in ChaosThread { till.sell() } }
        let fills = disk == nil ? 0 : max(1, options.kills / 3)
        let events = ChaosConductor.plan(kills: options.kills, fills: fills, over: options.duration, rng: &planRNG)
        let conductor = ChaosConductor(run: run, disk: disk, refusedJuice: choice.refusedJuice, seed: seed)
        let conductorThread = ChaosThread { conductor.conduct(events, from: start, until: end) }
        let backups = options.backups > 0 ? ChaosBackups(run: run, binary: binary, directory: directory) : nil
        let backupThread = backups.map { backups in
            ChaosThread {
                // Every planned backup is taken, late if the machine is slow (each within its own
                // deadline): the end of the selling does not cut the plan short.
                backups.take(at: ChaosBackups.moments(options.backups, from: start, over: options.duration)) { Interrupt.requested }
            }
        }
        var floodThreads: [ChaosThread] = []
        if options.flood.isOn, let juice = choice.refusedJuice {
            let floods = [("anonymous", ChaosFlood.source, nil), ("till", ChaosFlood.tillSource, "TILL \(floodTill)")]
            for (name, source, signIn) in floods {
                let moments = (0..<options.flood.bursts).map { _ in start + nanos(seconds: Double.random(in: 0.05...0.6, using: &planRNG) * options.duration) }
                let flood = ChaosFlood(run: run, juice: juice, keysPerBurst: options.flood.keysPerBurst, runID: runID, name: name, source: source, signIn: signIn)
                floodThreads.append(ChaosThread { flood.flood(at: moments.sorted()) })
            }
        }
        let progress = ChaosProgress(run: run, start: start, duration: options.duration)
        let graceEnd = end + nanos(seconds: ChaosConductor.grace)
        while (monotonicNow() < end || (!conductor.finished.load(ordering: .acquiring) && monotonicNow() < graceEnd))
                && !Interrupt.requested {
            pause(seconds: 0.2)
            server.sampleRSS()
            progress.tick()
        }

        // The end: no new orders, the chaos stops (the server left running), the last answers
        // are waited for, then the display catches up with the final seq.
        run.stopOrders.store(true, ordering: .relaxed)
        run.stopFlood.store(true, ordering: .relaxed)
        conductorThread.join()
        backupThread?.join()
        floodThreads.forEach { $0.join() }
        if let fatal = conductor.fatal { throw fatal }
        if Interrupt.requested {
            // Ctrl-C reached the server too (one process group): no verdict, just a clean stop.
            run.giveUpAt.store(monotonicNow(), ordering: .relaxed)
            tillThreads.forEach { $0.join() }
            run.stopDisplay.store(true, ordering: .relaxed)
            displayThread.join()
            writeToStandardError("juice-bench chaos: interrupted; no verdict (files in \(directory))\n")
            return 130
        }
        run.giveUpAt.store(monotonicNow() + nanos(seconds: options.ending.settle), ordering: .relaxed)
        tillThreads.forEach { $0.join() }
        progress.finish()
        let finalControl = try ControlClient(run.line, token: token)
        let after = try finalControl.figures(menu, since: day).figures
        _ = waitUntil(seconds: 30) { run.displaySeq.load(ordering: .relaxed) >= after.seq }
        run.stopDisplay.store(true, ordering: .relaxed)
        displayThread.join()

        // Each till's newest keys (orders' and voids') again over TCP, a sample of the orders'
        // over HTTP, each as its till; then the store must be as it was.
        server.sampleRSS()
        let observed = run.ledger.snapshot
        var resendRNG = ChaosRNG.stream(seed, 0xE5)
        let retriable = Resender.retriable(observed.acknowledged, voids: observed.voids)
        let sample = Array(retriable.orders.shuffled(using: &resendRNG).prefix(options.ending.resendHTTP))
        let resent = Resender.overTCP(retriable.orders, credentials: credentials, run: run)
            + Resender.overHTTP(sample, credentials: credentials, to: run.http)
        let resentVoids = Resender.voidsOverTCP(retriable.voids, credentials: credentials, run: run)
        let afterResend = try ControlClient(run.line, token: token).figures(menu, since: day).figures

        let observations = Observations(
            recipes: menu.recipesByName, before: before, after: after, afterResend: afterResend,
            acknowledged: observed.acknowledged, voids: observed.voids, prices: prices, unanswered: observed.unanswered,
            unexpected: observed.unexpected, display: observed.display, resent: resent, resentVoids: resentVoids,
            otherRefusals: options.flood.isOn || disk != nil,
            unplannedExits: observed.unplannedExits, anonymousFloodAnswers: observed.figures.floodAnswers["anonymous"] ?? [:])
        var checks = ChaosCheck.run(observations)
        if let backups { checks.append(backups.check(credentials: credentials, serverArguments: options.serverArguments)) }
        let passed = ChaosCheck.passed(checks)
        let keepFiles = options.keep || !passed
        print(ChaosReport.render(ChaosReport.Run(
            seed: seed, options: options, binary: binary, directory: keepFiles ? directory : nil,
            figures: observed.figures, observations: observations, checks: checks, diskNote: diskNote, peakRSSKiB: server.peakRSSKiB,
            floodNote: options.flood.isOn && choice.refusedJuice == nil ? "skipped (no juice can be kept refused)" : nil)))
        if !keepFiles {
            disk?.unmount()
            disk = nil
            server.terminate()
            removeTree(directory)
        }
        return passed ? (Interrupt.requested ? 130 : 0) : 1
    }

    /// A program built beside this one (SwiftPM puts all of a package's executables together).
    static func siblingExecutable(_ name: String) -> String {
        var buffer = [CChar](repeating: 0, count: 4096)
        let n = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        let own = n > 0 ? String(decoding: buffer[..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self) : CommandLine.arguments[0]
        guard let slash = own.lastIndex(of: "/") else { return name }
        return String(own[..<slash]) + "/" + name
    }

    static func makeRunDirectory() throws(BenchError) -> String {
        let base = getenv("TMPDIR").map { String(cString: $0) } ?? "/tmp"
        var template = Array((base + "/juice-chaos-XXXXXX").utf8CString)
        guard template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) != nil else {
            throw BenchError.fatal("cannot make a directory in \(base): \(errnoDescription())")
        }
        return String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    static func removeTree(_ path: String) {
        _ = runProgram(["rm", "-rf", "--", path])
    }

    /// Polls `condition` until it holds or `seconds` pass; whether it held.
    static func waitUntil(seconds: Double, _ condition: () -> Bool) -> Bool {
        let deadline = monotonicNow() + nanos(seconds: seconds)
        while !condition() {
            if monotonicNow() >= deadline { return false }
            pause(seconds: 0.01)
        }
        return true
    }
}

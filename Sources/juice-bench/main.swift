import JuicePlatform

// juice-bench: a load generator for text line protocols (juice-server, Redis inline commands,
// anything that answers one line per request). See Usage.swift, or run with --help.

/// Prints a load result; the exit status says whether the run can be trusted.
func report(_ result: LoadResult, json: Bool) -> Int32 {
    print(json ? renderJSON(result) : renderTable(result))
    var status: Int32 = 0
    if case .failed(let why) = result.fanoutCheck {
        writeToStandardError("juice-bench: fan-out check failed: \(why)\n")
        status = 1
    }
    if result.losses.count > 0 {
        writeToStandardError("juice-bench: \(result.losses.count) connections were closed during the run "
                             + "(\(result.losses.firstReason ?? "?")); figures are not trustworthy\n")
        status = 1
    }
    if result.interrupted && status == 0 { status = 130 }
    return status
}

func report(_ result: IdleResult, json: Bool) -> Int32 {
    print(json ? renderJSON(result) : renderTable(result))
    if result.losses.count > 0 {
        writeToStandardError("juice-bench: \(result.losses.count) idle connections were closed by the server\n")
        return 1
    }
    return result.interrupted ? 130 : 0
}

func runJuiceBench(_ arguments: [String]) -> Int32 {
    do throws(BenchError) {
        let command = try parseSubcommand(arguments)
        ProcessSetup.ignoreBrokenPipe()
        ProcessSetup.raiseFileLimit()
        Interrupt.install()
        switch command {
        case .help(let subcommand):
            print(usageText(for: subcommand))
            return 0
        case .selfTest:
            return runSelfTest()
        case .orders(let options):
            try StockSetup.stockUp(options.common.endpoint, juice: options.juice)
            return report(try LoadEngine.run(.orders(options)), json: options.common.json)
        case .fanout(let options):
            try StockSetup.stockUp(options.common.endpoint, juice: options.juice)
            return report(try LoadEngine.run(.fanout(options)), json: options.common.json)
        case .events(let options):
            try StockSetup.stockUp(options.common.endpoint, juice: options.fanout.juice)
            return report(try LoadEngine.run(.events(options)), json: options.common.json)
        case .raw(let options):
            return report(try LoadEngine.run(.raw(options)), json: options.common.json)
        case .idle(let options):
            return report(try LoadEngine.runIdle(options), json: options.common.json)
        case .chaos(let options):
            return try ChaosRun.run(options)
        case .burst(let options):
            let result = try BurstRun(options).run()
            print(options.common.json ? renderJSON(result) : renderTable(result))
            return result.interrupted ? 130 : 0
        case .history(let options):
            return try HistoryRun.run(options)
        }
    } catch {
        switch error {
        case .usage(let message, let subcommand):
            writeToStandardError("juice-bench\(subcommand.map { " " + $0 } ?? ""): \(message)\n\n\(usageText(for: subcommand))\n")
            return 2
        case .fatal(let message):
            writeToStandardError("juice-bench: \(message)\n")
            return 1
        }
    }
}

exit(runJuiceBench(Array(CommandLine.arguments.dropFirst())))

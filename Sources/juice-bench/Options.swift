// Command-line parsing. Pure: turns arguments into a `Subcommand` or a `BenchError.usage`,
// without touching the network, so it can be checked by `juice-bench self-test`.
import JuicePlatform

/// Options every load subcommand accepts.
struct CommonOptions {
    var endpoint = Endpoint(host: "127.0.0.1", port: 7878)
    var warmup = 1.0
    var duration = 5.0
    /// After the window: how long to wait for outstanding replies and events.
    var drain = 3.0
    var json = false
    var connectBurst = 200
    var connectTimeout = 30.0
    var progress = true
    /// Whose CPU time and context switches to report (`--server-pid`; orders, fanout, events
    /// and raw); nil: the process listening on the target port, if one is found.
    var serverPid: Int32?
}

/// What every subcommand's options have in common, so one loop can read them all.
protocol SubcommandOptions {
    init()
    var common: CommonOptions { get set }
}

struct OrdersOptions: SubcommandOptions {
    var common = CommonOptions()
    var connections = 50
    var pipeline = 1
    var juice = "mango-kiwi"
    /// Nonzero: order with `POST /orders` over HTTP keep-alive on this port (the stock-up
    /// still goes to `--port`).
    var httpPort = 0
}

struct FanoutOptions: SubcommandOptions {
    var common = CommonOptions()
    var watchers = 1000
    var juice = "mango-kiwi"
}

/// `fanout` with browsers: the cashier on `--port`, the streams (`--streams`, the fan-out's
/// watchers) on the HTTP port.
struct EventsOptions: SubcommandOptions {
    var fanout = FanoutOptions()
    var httpPort = 7879
    var common: CommonOptions {
        get { fanout.common }
        set { fanout.common = newValue }
    }
}

/// `idle`, which the engine runs from these as they are (IdleRun.swift): no plan to work out.
struct IdleOptions: SubcommandOptions {
    var common: CommonOptions = {
        var common = CommonOptions()
        common.duration = 2     // how long to hold the connections before the final RSS read
        return common
    }()
    var connections = 1000
    /// Hold `connections` event streams (GET /events on `httpPort`) instead of line connections.
    var eventStreams = false
    var httpPort = 7879
    var pid: Int32 = 0
    var greetingLines = 1
    var probe: String?
    var replySkip: [String] = []
}

/// `raw` spells out a whole `LoadPlan`, flag by flag.
struct RawOptions: SubcommandOptions {
    var plan = LoadPlan(mode: "raw", common: CommonOptions(), connections: 1, pipeline: 1, requests: [])
    var common: CommonOptions {
        get { plan.common }
        set { plan.common = newValue }
    }
}

/// What the command line asks juice-bench to do: a subcommand with its options, help, or the
/// self-test.
enum Subcommand {
    case help(subcommand: String?)
    case selfTest
    case orders(OrdersOptions)
    case fanout(FanoutOptions)
    case events(EventsOptions)
    case idle(IdleOptions)
    case raw(RawOptions)
    case chaos(ChaosOptions)
    case burst(BurstOptions)
    case history(HistoryOptions)
}

/// Walks the arguments of one subcommand with the scanner every juice program reads its
/// command line with (`--flag value` and `--flag=value` alike); juice-bench's own words for a
/// number or a duration that will not do.
struct ArgumentReader {
    let subcommand: String
    private var scanner: CommandLineScanner

    init(subcommand: String, arguments: ArraySlice<String>) {
        self.subcommand = subcommand
        scanner = CommandLineScanner(arguments)
    }

    mutating func nextFlag() throws(BenchError) -> String? {
        do throws(CommandLineError) { return try scanner.nextFlag() } catch { throw usage(error.description) }
    }

    mutating func string(for flag: String) throws(BenchError) -> String {
        do throws(CommandLineError) { return try scanner.value() } catch { throw usage(error.description) }
    }

    mutating func int(for flag: String, min: Int = 0, max: Int = Int.max) throws(BenchError) -> Int {
        do throws(CommandLineError) {
            return try scanner.number(in: min...max)
        } catch .badNumber(_, let text, _, _) {
            throw usage("\(flag) needs a whole number between \(min) and \(max), not '\(text)'")
        } catch {
            throw usage(error.description)
        }
    }

    mutating func seconds(for flag: String, allowZero: Bool = true) throws(BenchError) -> Double {
        let text = try string(for: flag)
        guard let value = Double(text), value.isFinite, value >= 0, allowZero || value > 0 else {
            throw usage("\(flag) needs a number of seconds\(allowZero ? "" : " above 0"), not '\(text)'")
        }
        return value
    }

    mutating func pid(for flag: String) throws(BenchError) -> Int32 {
        Int32(try int(for: flag, min: 1, max: Int(Int32.max)))
    }

    func usage(_ message: String) -> BenchError {
        .usage(message, subcommand: subcommand)
    }

    /// Handles the flags shared by all subcommands; false if `flag` is not one of them.
    mutating func parseCommon(_ flag: String, into common: inout CommonOptions) throws(BenchError) -> Bool {
        switch flag {
        case "--host": common.endpoint.host = try string(for: flag)
        case "--port": common.endpoint.port = try int(for: flag, min: 1, max: 65535)
        case "--duration": common.duration = try seconds(for: flag, allowZero: false)
        case "--warmup": common.warmup = try seconds(for: flag)
        case "--drain": common.drain = try seconds(for: flag)
        case "--json": common.json = true
        case "--no-progress": common.progress = false
        case "--connect-burst": common.connectBurst = try int(for: flag, min: 1)
        case "--connect-timeout": common.connectTimeout = try seconds(for: flag, allowZero: false)
        default: return false
        }
        return true
    }

    /// Reads every flag into a subcommand's defaults: the common ones here, the rest by
    /// `parseOwn`, which returns false for a flag the subcommand does not know.
    mutating func parseFlags<Options: SubcommandOptions>(
        _ parseOwn: (String, inout Options, inout ArgumentReader) throws(BenchError) -> Bool
    ) throws(BenchError) -> Options {
        var options = Options()
        while let flag = try nextFlag() {
            if try parseCommon(flag, into: &options.common) { continue }
            guard try parseOwn(flag, &options, &self) else { throw usage("unknown option \(flag)") }
        }
        return options
    }
}

let subcommandNames = ["orders", "fanout", "events", "idle", "raw", "chaos", "burst", "history"]

func parseSubcommand(_ arguments: [String]) throws(BenchError) -> Subcommand {
    guard let first = arguments.first else {
        throw BenchError.usage("missing subcommand", subcommand: nil)
    }
    switch first {
    case "-h", "--help", "help":
        let topic = arguments.dropFirst().first
        if let topic, !subcommandNames.contains(topic) {
            throw BenchError.usage("unknown subcommand '\(topic)'", subcommand: nil)
        }
        return .help(subcommand: topic)
    case "self-test":
        return .selfTest
    case "orders", "fanout", "events", "idle", "raw", "chaos", "burst", "history":
        let rest = arguments.dropFirst()
        if CommandLineScanner(rest).asksForHelp { return .help(subcommand: first) }
        var reader = ArgumentReader(subcommand: first, arguments: rest)
        switch first {
        case "orders":
            return .orders(try parseLoad(&reader, juice: \.juice,
                                         numbers: ["--conns": (\.connections, 1...Int.max), "--pipeline": (\.pipeline, 1...65536),
                                                   "--http-port": (\.httpPort, 1...65535)]))
        case "fanout":
            return .fanout(try parseLoad(&reader, juice: \.juice, numbers: ["--watchers": (\.watchers, 1...Int.max)]))
        case "events":
            return .events(try parseLoad(&reader, juice: \.fanout.juice,
                                         numbers: ["--streams": (\.fanout.watchers, 1...Int.max), "--http-port": (\.httpPort, 1...65535)]))
        case "idle": return .idle(try parseIdle(&reader))
        case "chaos": return .chaos(try parseChaos(&reader))
        case "burst": return .burst(try parseBurst(&reader))
        case "history": return .history(try parseHistory(&reader))
        default: return .raw(try parseRaw(&reader))
        }
    default:
        throw BenchError.usage("unknown subcommand '\(first)'", subcommand: nil)
    }
}

/// `orders`, `fanout` and `events` take the same kinds of flags: the juice to order, and whole
/// numbers (how many cashiers, watchers or streams; the pipeline depth; the HTTP port).
private func parseLoad<Options: SubcommandOptions>(
    _ reader: inout ArgumentReader, juice: WritableKeyPath<Options, String>,
    numbers: [String: (WritableKeyPath<Options, Int>, ClosedRange<Int>)]
) throws(BenchError) -> Options {
    try reader.parseFlags { flag, options, reader throws(BenchError) in
        if flag == "--juice" {
            options[keyPath: juice] = try reader.string(for: flag)
        } else if flag == "--server-pid" {
            options.common.serverPid = try reader.pid(for: flag)
        } else if let (field, range) = numbers[flag] {
            options[keyPath: field] = try reader.int(for: flag, min: range.lowerBound, max: range.upperBound)
        } else {
            return false
        }
        return true
    }
}

private func parseIdle(_ reader: inout ArgumentReader) throws(BenchError) -> IdleOptions {
    var sawPid = false, sawConns = false, sawHTTPPort = false, sawLineOption = false
    let options: IdleOptions = try reader.parseFlags { flag, options, reader throws(BenchError) in
        switch flag {
        case "--conns":
            options.connections = try reader.int(for: flag, min: 1)
            sawConns = true
        case "--streams":
            options.connections = try reader.int(for: flag, min: 1)
            options.eventStreams = true
        case "--http-port":
            options.httpPort = try reader.int(for: flag, min: 1, max: 65535)
            sawHTTPPort = true
        case "--pid":
            options.pid = try reader.pid(for: flag)
            sawPid = true
        case "--greeting-lines":
            options.greetingLines = try reader.int(for: flag, max: 1000)
            sawLineOption = true
        case "--probe":
            options.probe = try reader.string(for: flag)
            sawLineOption = true
        case "--reply-skip":
            options.replySkip.append(try reader.string(for: flag))
            sawLineOption = true
        default: return false
        }
        return true
    }
    guard sawPid else { throw reader.usage("--pid PID (the server's process id) is required") }
    if options.eventStreams {
        if sawConns { throw reader.usage("give --conns N (line connections) or --streams N (event streams), not both") }
        if sawLineOption { throw reader.usage("--greeting-lines, --probe and --reply-skip are for line connections, not --streams") }
        return options
    }
    if sawHTTPPort { throw reader.usage("--http-port is for --streams N (idle event streams)") }
    if options.greetingLines == 0 && options.probe == nil {
        throw reader.usage("with --greeting-lines 0 give --probe LINE (e.g. PING), so that each connection proves the server accepted it")
    }
    return options
}

private func parseRaw(_ reader: inout ArgumentReader) throws(BenchError) -> RawOptions {
    let options: RawOptions = try reader.parseFlags { flag, options, reader throws(BenchError) in
        switch flag {
        case "--request": options.plan.requests.append(try reader.string(for: flag))
        case "--setup": options.plan.setup.append(try reader.string(for: flag))
        case "--reply-skip": options.plan.replySkip.append(try reader.string(for: flag))
        case "--greeting-lines": options.plan.greetingLines = try reader.int(for: flag, max: 1000)
        case "--conns": options.plan.connections = try reader.int(for: flag, min: 1)
        case "--pipeline": options.plan.pipeline = try reader.int(for: flag, min: 1, max: 65536)
        case "--watchers": options.plan.watchers = try reader.int(for: flag)
        case "--watch-setup": options.plan.watchSetup.append(try reader.string(for: flag))
        case "--watch-setup-lines": options.plan.watchSetupLines = try reader.int(for: flag, max: 1000)
        case "--event-match": options.plan.eventMatch.append(try reader.string(for: flag))
        case "--check-seq": options.plan.checkSequence = true
        case "--server-pid": options.plan.common.serverPid = try reader.pid(for: flag)
        default: return false
        }
        return true
    }
    guard !options.plan.requests.isEmpty else { throw reader.usage("--request LINE is required") }
    if options.plan.watchers > 0 && options.plan.eventMatch.isEmpty {
        throw reader.usage("--watchers needs --event-match PREFIX (which watcher lines are events)")
    }
    return options
}

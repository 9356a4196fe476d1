import JuicePlatform

/// `juice-bench chaos` flags. It starts its own server, so there is no `--host`/`--port`.
struct ChaosOptions: Equatable {
    /// The juice-server executable; nil: the one next to juice-bench.
    var server: String?
    var seed: UInt64?
    var duration = 30.0
    var tills = 4
    var kills = 5
    /// Keys per flood burst; 0: no flood.
    var flood = 0
    var floodBursts = 2
    var fillDisk = false
    var initialStock = 100_000_000
    /// Most seconds a till waits between two orders (a random pause up to it).
    var think = 0.01
    /// How long the tills may take after the run to get their last answers.
    var settle = 60.0
    /// Keys re-sent over HTTP at the end (every key is re-sent over TCP).
    var resendHTTP = 300
    var inMemory = false
    var keep = false
    var serverArguments: [String] = []
}

func parseChaos(_ reader: inout ArgumentReader) throws(BenchError) -> ChaosOptions {
    var options = ChaosOptions()
    while let flag = try reader.nextFlag() {
        switch flag {
        case "--server": options.server = try reader.string(for: flag)
        case "--seed": options.seed = UInt64(try reader.int(for: flag))
        case "--duration": options.duration = try reader.seconds(for: flag, allowZero: false)
        case "--tills": options.tills = try reader.int(for: flag, min: 1, max: 200)
        case "--kills": options.kills = try reader.int(for: flag, max: 10_000)
        case "--flood": options.flood = try reader.int(for: flag, max: 100_000_000)
        case "--flood-bursts": options.floodBursts = try reader.int(for: flag, min: 1, max: 1000)
        case "--fill-disk": options.fillDisk = true
        case "--initial-stock": options.initialStock = try reader.int(for: flag, min: 1, max: 1_000_000_000)
        case "--think": options.think = try reader.seconds(for: flag)
        case "--settle": options.settle = try reader.seconds(for: flag, allowZero: false)
        case "--resend-http": options.resendHTTP = try reader.int(for: flag)
        case "--in-memory": options.inMemory = true
        case "--keep": options.keep = true
        case "--server-arg": options.serverArguments.append(try reader.string(for: flag))
        default: throw reader.usage("unknown option \(flag)")
        }
    }
    if options.inMemory && options.fillDisk { throw reader.usage("--fill-disk needs a data directory, not --in-memory") }
    let owned = ["--port", "--http-port", "--data", "--in-memory", "--host", "--no-http"]
    if let taken = options.serverArguments.first(where: { arg in owned.contains { arg == $0 || arg.hasPrefix($0 + "=") } }) {
        throw reader.usage("--server-arg \(taken): the chaos run sets the server's address, ports and data itself")
    }
    return options
}

let chaosUsage = """
usage: juice-bench chaos [--duration S] [--tills N] [--kills N] [--flood KEYS] [--fill-disk] [options]

Starts its own juice-server (a fresh data directory in /tmp, free ports) and attacks it while
tills sell: N tills, half over TCP (ORDER ... key=K) and half over HTTP (POST /orders with
Idempotency-Key), each sending one keyed order at a time and retrying its key until it gets a
definite answer; a display follows EVENT STOCK and catches up with SINCE after every lost
connection. Meanwhile the server is SIGKILLed at random moments (half of them right after a
till wrote an order, before its answer) and started again on the same data and ports.
Then it checks, and prints PASS or FAIL with the figures:
  - every acknowledged order applied exactly once (sold, stock, seq, order counters);
  - no acknowledged change lost (each seq one order's, as the display saw it);
  - the display saw every seq once, in order (a full-state resync is reported, not a gap);
  - a re-sent key gets its first answer (every key again over TCP, a sample over HTTP);
  - every order got a definite answer; the server ended only when killed.

    --duration S          seconds of selling and chaos (default 30)
    --tills N             tills, alternating TCP and HTTP (default 4)
    --kills N             SIGKILLs, at random moments (default 5)
    --flood KEYS          a flood: a client of its own address pipelines KEYS refused keyed
                          orders per burst (ORDER <juice> 1000 key=junk-<i>), to push the
                          tills' keys out of the server's key memory (default 0: off)
    --flood-bursts N      flood bursts, at random moments (default 2)
    --fill-disk           data on a small tmpfs, filled now and then, with a kill while full
                          (Linux, as root; otherwise reported as skipped)
    --initial-stock N     every fruit's stock in the new store (default 100000000)
    --think S             most seconds a till waits between orders (default 0.01)
    --settle S            after the run, how long the tills may take to get their last
                          answers (default 60)
    --resend-http N       keys re-sent over HTTP at the end (default 300; all go over TCP)
    --seed N              the plan's random seed (default: from the clock; printed)
    --server PATH         the juice-server to run (default: the one beside juice-bench)
    --server-arg ARG      one more word for the server's command line, e.g. to compact often:
                          --server-arg --journal-max-bytes --server-arg 200000
                          (repeatable)
    --in-memory           run the server --in-memory: restarts lose everything, so the run
                          must FAIL (a check of the checks)
    --keep                keep the data directory and the server's log (kept anyway on FAIL)

Exit status: 0 PASS, 1 FAIL or cannot run, 2 bad usage.
"""

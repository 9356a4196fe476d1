import JuicePlatform

/// `juice-bench chaos` flags. It starts its own server on 127.0.0.1, so there is no `--host`;
/// its ports may be chosen (to watch it, or to keep clear of a firewall's range).
struct ChaosOptions: Equatable {
    /// The juice-server executable; nil: the one next to juice-bench.
    var server: String?
    var seed: UInt64?
    var duration = 30.0
    var tills = 4
    var kills = 5
    var flood = Flood()
    var disk = Disk()
    var initialStock = 100_000_000
    /// Most seconds a till waits between two orders (a random pause up to it).
    var think = 0.01
    var ending = Ending()
    /// The chance, in percent, that a till follows a made sale with a void of one of its own
    /// recent sales (0: no voids).
    var voidPercent = 10
    /// Backups taken during the run (`juice-server backup`), each restored and checked at the end.
    var backups = 0
    var inMemory = false
    var keep = false
    /// The server's line and HTTP ports; 0: free ones, picked at the first start.
    var port = 0
    var httpPort = 0
    var serverArguments: [String] = []

    /// The floods (`--flood`, `--flood-bursts`): each burst's keys, sent from an anonymous
    /// address and from a paired till, and the bursts each sends.
    struct Flood: Equatable {
        /// 0: no flood.
        var keysPerBurst = 20_000
        var bursts = 2
        var isOn: Bool { keysPerBurst > 0 }
    }

    /// The full disk (`--fill-disk`, `--disk-mb`): whether the data goes on a tmpfs filled now
    /// and then, and its size.
    struct Disk: Equatable {
        var fill = false
        /// Above the server's default journal size before it compacts (64 MiB) with room for the
        /// snapshot it writes then: on a smaller disk a long run's real sales fill it for good,
        /// and the store stays read-only to the end.
        var megabytes = 256
    }

    /// After the selling (`--settle`, `--resend-http`): how long the tills may take to get their
    /// last answers, and how many keys are re-sent over HTTP (every key is re-sent over TCP).
    struct Ending: Equatable {
        var settle = 60.0
        var resendHTTP = 300
    }
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
        case "--flood": options.flood.keysPerBurst = try reader.int(for: flag, max: 100_000_000)
        case "--flood-bursts": options.flood.bursts = try reader.int(for: flag, min: 1, max: 1000)
        case "--fill-disk": options.disk.fill = true
        case "--disk-mb": options.disk.megabytes = try reader.int(for: flag, min: 16, max: 65536)
        case "--initial-stock": options.initialStock = try reader.int(for: flag, min: 1, max: 1_000_000_000)
        case "--think": options.think = try reader.seconds(for: flag)
        case "--settle": options.ending.settle = try reader.seconds(for: flag, allowZero: false)
        case "--resend-http": options.ending.resendHTTP = try reader.int(for: flag)
        case "--voids": options.voidPercent = try reader.int(for: flag, max: 100)
        case "--backups": options.backups = try reader.int(for: flag, max: 100)
        case "--in-memory": options.inMemory = true
        case "--keep": options.keep = true
        case "--port": options.port = try reader.int(for: flag, max: 65535)
        case "--http-port": options.httpPort = try reader.int(for: flag, max: 65535)
        case "--server-arg": options.serverArguments.append(try reader.string(for: flag))
        default: throw reader.usage("unknown option \(flag)")
        }
    }
    if options.inMemory && options.disk.fill { throw reader.usage("--fill-disk needs a data directory, not --in-memory") }
    if options.port != 0 && options.port == options.httpPort { throw reader.usage("--port and --http-port must differ") }
    let owned = ["--port", "--http-port", "--data", "--in-memory", "--host", "--no-http"]
    if let taken = options.serverArguments.first(where: { arg in owned.contains { arg == $0 || arg.hasPrefix($0 + "=") } }) {
        throw reader.usage("--server-arg \(taken): the chaos run sets the server's address, ports and data itself")
    }
    return options
}

let chaosUsage = """
usage: juice-bench chaos [--duration S] [--tills N] [--kills N] [--flood KEYS] [--fill-disk] [options]

Starts its own juice-server (a fresh data directory in /tmp, free ports, a manager token of its
own) and attacks it while tills sell: N paired tills, half over TCP (PAIR, then TILL and
ORDER ... key=K) and half over HTTP (POST /tills/pair, then POST /orders with Juice-Till and
Idempotency-Key), each sending one keyed order at a time and retrying its key until it gets a
definite answer, and now and then voiding one of its own recent sales the same way (VOID <sale>
<reason> key=K; POST /voids); a display follows EVENT STOCK and catches up with SINCE after
every lost connection. Meanwhile the server is SIGKILLed at random moments (half of them right after a
till wrote an order, before its answer) and started again on the same data and ports.
Then it checks, and prints PASS or FAIL with the figures:
  - every acknowledged order applied exactly once (sold, stock, seq, order counters);
  - no acknowledged change lost (each seq one order's or void's, as the display saw it);
  - the display saw every seq once, in order (a full-state resync is reported, not a gap);
  - a re-sent key gets its first answer (each till's newest 1000 keys again over TCP, as that
    till, a sample over HTTP: a till retries only keys among its newest 1000);
  - the anonymous flood was refused (FORBIDDEN or BUSY);
  - every order got a definite answer; the server ended only when killed;
  - every acknowledged void applied exactly once (each its own till's sale, none twice;
    REPORT's voids= and voided_<juice>= agree; a void's key re-sent gets its first answer, a
    voided sale's key re-sent names the void);
  - the money adds up (each sale's amount is price x count, each void gives back its sale's;
    REPORT's takings= grew by the sales' amounts less the voids', voided_amount= by the voids');
  - with --backups: every backup restores what was acknowledged before it (each restored with
    juice-server restore and started: its seq reaches every change acknowledged before the
    backup was asked for, and those keys, sent again as their tills, get their first answer dup).

    --duration S          seconds of selling and chaos (default 30)
    --tills N             tills, alternating TCP and HTTP (default 4)
    --kills N             SIGKILLs, at random moments (default 5)
    --flood KEYS          two floods, each pipelining KEYS keyed orders per burst (ORDER
                          <juice> 1000 key=junk-<i>, always refused for stock): one from an
                          anonymous address (it must get FORBIDDEN or BUSY), one from a paired
                          till of its own (it may only push out its own oldest keys); every
                          selling till must keep answering (default 20000; 0: off)
    --flood-bursts N      flood bursts each, at random moments (default 2)
    --fill-disk           data on a small tmpfs, filled now and then, with a kill while full
                          (Linux, as root; otherwise reported as skipped)
    --disk-mb N           the tmpfs's size in MiB (default 256: above the journal's 64 MiB
                          before it compacts, so a long run's own sales cannot fill it)
    --initial-stock N     every fruit's stock in the new store (default 100000000)
    --think S             most seconds a till waits between orders (default 0.01)
    --settle S            after the run, how long the tills may take to get their last
                          answers (default 60)
    --resend-http N       keys re-sent over HTTP at the end (default 300; all go over TCP)
    --voids PERCENT       the chance that a till follows a made sale with a void of one of
                          its own sales of the last 5 minutes (default 10; 0: no voids)
    --backups N           N backups during the run, with juice-server backup over HTTP as the
                          nightly job takes them (retried while the server is down), each
                          restored and checked at the end (default 0). To take them across
                          compactions: --server-arg --journal-max-bytes --server-arg 20000
    --seed N              the plan's random seed (default: from the clock; printed)
    --server PATH         the juice-server to run (default: the one beside juice-bench)
    --server-arg ARG      one more word for the server's command line, e.g. to compact often:
                          --server-arg --journal-max-bytes --server-arg 200000
                          (repeatable)
    --in-memory           run the server --in-memory: restarts lose everything, so the run
                          must FAIL (a check of the checks)
    --keep                keep the data directory and the server's log (kept anyway on FAIL;
                          with --fill-disk, copied out of the tmpfs before it is unmounted)
    --port N              the server's line port (default 0: a free one)
    --http-port N         the server's HTTP port (default 0: a free one)

The verdict also says the server's peak resident memory (VmHWM, the highest of any start).

Exit status: 0 PASS, 1 FAIL or cannot run, 2 bad usage.
"""

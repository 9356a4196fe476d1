import Foundation
import JuiceCore
import JuiceDomain
import JuiceStorage
import JuicePlatform
import JuiceLog
import JuiceLoop
import JuiceServices
import JuiceLine
import JuiceHTTP

/// `juice-server` flags. Parsing is pure (arguments and environment in, a decision out), so it
/// is unit-tested without starting anything, and a bad flag never touches the disk.
public enum CommandLineOptions {
    public enum Action {
        case run(ServerConfig)
        case help
        case version
        case printMenu(Menu)
        /// `juice-server backup [FILE | DIR] ...`: fetch one from a running server (`BackupCommand`).
        case backup(BackupCommand.Request)
        /// `juice-server verify FILE`: check a backup (`VerifyCommand`).
        case verify(file: String)
        /// `juice-server restore FILE --data DIR [--force]` (`RestoreCommand`).
        case restore(file: String, directory: String, force: Bool)
    }

    public struct UsageError: Error, CustomStringConvertible {
        public let description: String
    }

    public static let usage = "usage: juice-server [--host ADDR] [--port N] [--data DIR | --in-memory] [options]  (--help for all)"

    public static var help: String {
        """
        juice-server \(JuiceVersion.current): a shared fruit store for a juice stand, over a line protocol (see PROTOCOL.md).

        \(usage)
        \(BackupCommandLine.usage)

        Network:
          --host ADDR              address to listen on (default 127.0.0.1). A non-loopback address
                                   needs a manager token (JUICE_MANAGER_TOKEN or --manager-token-file).
          --port N                 TCP port, 0 picks a free one (default 7878)
          --http-port N            HTTP port for browsers, same --host: the menu board at /, its
                                   event stream /events, /state, /healthz, the manager's
                                   /dashboard, /sales and /metrics, and the writes POST /orders,
                                   /restock, /set (default 7879; 0 picks a free one). HTTP/1.1
                                   keep-alive: 1000 requests per connection, closed after 5 s idle
          --no-http                no HTTP side
          --allow-host NAME        a host name under which browsers may write over HTTP (POST),
                                   besides IP addresses and localhost; repeatable. Reads work
                                   under any name (DNS-rebinding guard, see PROTOCOL.md)
          --max-clients N          most clients at once, TCP and HTTP together; more get "ERR BUSY"
                                   or HTTP 503 (default 10000)
          --reserved-clients N     of those, slots only known clients take: the manager (AUTH, or
                                   HTTP Bearer) and paired tills. Anonymous clients (screens,
                                   event streams, phones) hold at most the rest. A new connection
                                   that finds the anonymous slots full gets a reserved one on
                                   probation: it must sign in within 5 s, or it is refused as busy
                                   (4 at a time per address). At most half of --max-clients (default 64)
          --max-clients-per-address N
                                   most anonymous connections one address may hold, TCP and HTTP
                                   together; behind --trusted-proxy, one forwarded client. More get
                                   "ERR BUSY" or HTTP 503; 0: no limit (default 32)
          --max-output-bytes N     unsent output a client may have before it is dropped as slow (default 1048576)
          --idle-timeout SECONDS   close anonymous clients idle this long: nothing read from them
                                   and none of their output taken (an event stream that is read
                                   is not idle; one that stopped reading is). Known clients are
                                   never closed as idle; 0: off (default 300)
          --shutdown-timeout SECONDS
                                   on SIGINT/SIGTERM, how long clients get to take their last
                                   replies and EVENT BYE before they are closed: whole
                                   seconds, 1-600 (default 1.5)
          --trusted-proxy ADDR/PREFIX
                                   a reverse proxy (e.g. Caddy on 127.0.0.1/32) whose X-Forwarded-For
                                   or Forwarded header names the HTTP client; repeatable, none by
                                   default. Per-address rules (AUTH failures, --max-clients-per-address)
                                   then count the client, not the proxy: the proxy's connections are
                                   counted per forwarded client, request by request. The header from
                                   anyone else is ignored.
        Storage:
          --data DIR               data directory: journal and snapshot (default ./juice-data, created if missing).
                                   On a full disk the store turns read-only (ERR READ_ONLY, /healthz 503)
                                   and takes changes again by itself once there is room
          --in-memory              keep nothing on disk (tests, benchmarks)
          --journal-max-bytes N    compact the journal into a snapshot past this size (default 67108864)
        Store:
          --initial-stock N        stock of each fruit in a new store (a new data directory), 0 to \(Limits.maxStock) (default 10)
          --menu FILE              the shop's own menu, JSON (default: the original seven juices)
          --print-menu             print the menu (default or --menu) as a JSON starting file and exit
          --accept-menu-change     start even if the menu drops a fruit the data still has in stock,
                                   or prices sales in another currency than the data's
          --timezone NAME          the shop's time zone for its days and hours (reports, REPORT), an
                                   IANA name such as Asia/Seoul (default: the machine's)
          --day-starts HH:MM       when a business day starts: a sale at 01:30 belongs to the evening
                                   before (default 04:00). A change of either applies from then on:
                                   hours already recorded keep the day and hour they were given
          --key-retention SECONDS  an idempotency key younger than this is never forgotten: a retry
                                   within it is applied at most once and gets the first answer
                                   (default \(Limits.keyRetentionSeconds), 24 hours)
          --keys-per-till N        the newest keys each paired till's own key namespace keeps (and
                                   the manager's); a till's newest key pushes out only its own
                                   oldest: a till retries only keys among its newest N (default \(Limits.keysPerTill))
          --key-memory N           idempotency keys remembered at most, anonymous clients together; a new
                                   key past it is refused "ERR BUSY" (HTTP 503), never made room
                                   for by forgetting a young one (default \(Limits.rememberedKeys))
          --keys-per-address N     of those, most one client address may hold (an IPv6 client counts
                                   by its /64), so one client cannot take the others' room (default \(Limits.keysPerAddress))
          --lost-sales-per-minute N  juices one address's refused orders may add to the lost-sales
                                   figures per minute; refusals past it are answered the same but
                                   not counted (default \(LostSalesAllowance.defaultPerMinute))
        Security:
          --manager-token-file PATH  read the manager token from the first line of a file (trimmed),
                                   or set JUICE_MANAGER_TOKEN. With a token, RESTOCK, SET, REPORT and
                                   TILLS need "AUTH <token>" first, and ORDER a paired till
                                   ("TILL <credential>"; pair one with TILLS NEW and PAIR, or on the
                                   /tills page) or the manager. A token AUTH cannot carry (spaces, control
                                   characters, not UTF-8, too long) is refused at start.
                                   \(AuthFailureLimiter.Policy().maxFailures) wrong tokens from one address within \(AuthFailureLimiter.Policy().windowNanoseconds / 1_000_000_000) s: its AUTH is
                                   refused unchecked until that minute is over.
        Logging (stderr):
          --log-level LEVEL        error, warn, info or debug (default info). Start/stop lines and
                                   errors are always written; warn adds refusals and dropped clients,
                                   info adds connects and disconnects. Lines a client can repeat
                                   (connects, refusals, busy) are limited to \(LogThrottle.perWindow) a second per kind,
                                   then one "N similar lines suppressed" line; debug lifts that limit.
        Backups (see README, "Backups"):
          GET /backup              (HTTP, manager) the running store's whole state as one file,
                                   everything acknowledged before the request began (4 sent
                                   at once at most: a fifth meanwhile is 503, Retry-After: 5)
          backup [FILE | DIR]      ask the running server for one (GET /backup), verify it and
                                   write it (a DIR: under the server's name, juice-<day>.backup);
                                   a backup that does not verify is not written (exit 1); it
                                   gives up after 60 s of silence or 15 minutes in all; two at
                                   once into one FILE each write their own temp, both whole
          --server HOST:PORT       (backup) the server's HTTP port (default 127.0.0.1:7879)
          --manager-token-file P   (backup) the manager token, as for the server (or
                                   JUICE_MANAGER_TOKEN); none for a server without one
          verify FILE              check a backup without starting a server: print its seq, last
                                   change, keys, days of history and tills, or refuse it naming
                                   the offset and what is wrong (exit 1)
          restore FILE --data DIR  verify FILE, then make DIR a store holding it (a new store id:
                                   clients resync). Refuses a DIR whose store holds data
                                   (changes, keys, history, tills), even at seq 0
          --force                  (restore) restore over it anyway, keeping its files aside as
                                   <name>.before-restore-<time>
        Other:
          --help                   this text
          --version                the version
          JUICE_POLLER=dispatch    (environment) watch clients with a Dispatch source each, as on macOS,
                                   instead of one epoll set (Linux)

        Exit status: 0 clean stop; 1 cannot start, or a second signal; 2 bad flags, menu or token;
        3 the journal could not be made durable (a failed fsync), or could not be written for a
          reason other than lack of room (a full disk makes the store read-only instead);
          also when the last write never finished at shutdown.

        Limits: lines up to \(Limits.maxLineBytes) bytes; ORDER count 1-\(Limits.maxOrderCount); stock 0-\(Limits.maxStock) per fruit;
        idempotency keys kept at least \(Limits.keyRetentionSeconds) s (ORDER, RESTOCK, SET); SINCE replays the last \(Limits.historyEvents) changes.
        """
    }

    /// The flags that take a whole number: the range it must be in, and where it goes.
    private static let numberFlags: [String: (range: ClosedRange<Int>, unit: String, set: @Sendable (inout ServerConfig, Int) -> Void)] = [
        "--port": (0...65535, "", { $0.port = $1 }),
        "--http-port": (0...65535, "", { $0.httpPort = $1 }),
        "--initial-stock": (0...Limits.maxStock, "", { $0.initialStock = $1; $0.initialStockOverridesMenu = true }),
        "--max-clients": (1...1_000_000, "", { $0.maxClients = $1 }),
        "--max-clients-per-address": (0...1_000_000, "", { $0.maxClientsPerAddress = $1 == 0 ? nil : $1 }),
        "--reserved-clients": (0...1_000_000, "", { $0.reservedClients = $1 }),
        "--max-output-bytes": (1024...(1 << 34), "", { $0.maxOutputBytes = $1 }),
        "--idle-timeout": (0...31_536_000, "seconds", { $0.idleTimeoutSeconds = $1 == 0 ? nil : $1 }),
        "--shutdown-timeout": (1...600, "seconds", { $0.shutdownTimeoutSeconds = Double($1) }),
        "--journal-max-bytes": (1024...(1 << 40), "", { $0.journalMaxBytes = $1 }),
        "--key-retention": (1...31_536_000, "seconds", { $0.keyPolicy.retentionSeconds = Int64($1) }),
        "--key-memory": (1...10_000_000, "keys", { $0.keyPolicy.capacity = $1 }),
        "--keys-per-address": (1...10_000_000, "keys", { $0.keyPolicy.sharePerAddress = $1 }),
        "--keys-per-till": (1...100_000, "keys", { $0.keyPolicy.perTill = $1 }),
        "--lost-sales-per-minute": (1...1_000_000, "juices", { $0.lostSalesPerMinute = $1 }),
    ]

    public static func parse(_ arguments: [String], environment: [String: String] = [:]) -> Result<Action, UsageError> {
        var config = ServerConfig()
        var tokenFile: String?
        var menuFile: String?
        var printMenu = false
        func fail(_ message: String) -> Result<Action, UsageError> {
            .failure(UsageError(description: "juice-server: \(message)\n\(usage)"))
        }
        var scanner = CommandLineScanner(arguments)
        if scanner.asksForHelp { return .success(.help) }
        if let command = arguments.first, BackupCommandLine.commands.contains(command) {
            return BackupCommandLine.parse(command, Array(arguments.dropFirst()), environment: environment)
        }
        do throws(CommandLineError) {
            while let flag = try scanner.nextFlag() {
                if let numeric = numberFlags[flag] {
                    numeric.set(&config, try scanner.number(in: numeric.range, unit: numeric.unit))
                    continue
                }
                switch flag {
                case "--version":
                    return .success(.version)
                case "--in-memory":
                    config.dataDirectory = nil
                case "--print-menu":
                    printMenu = true
                case "--accept-menu-change":
                    config.acceptMenuChange = true
                case "--no-http":
                    config.httpPort = nil
                case "--timezone":
                    let v = try scanner.value()
                    guard let zone = TimeZone(identifier: v) else {
                        return fail("--timezone needs an IANA time zone name such as Asia/Seoul or America/New_York, not '\(v)'")
                    }
                    config.calendar = BusinessCalendar(timeZone: zone, dayStartMinutes: config.calendar.dayStartMinutes)
                case "--day-starts":
                    let v = try scanner.value()
                    guard let minutes = BusinessCalendar.minutes(ofClock: v) else {
                        return fail("--day-starts needs a time HH:MM from 00:00 to 23:59, not '\(v)'")
                    }
                    config.calendar = BusinessCalendar(timeZone: config.calendar.timeZone, dayStartMinutes: minutes)
                case "--host":
                    let v = try scanner.value()
                    guard !v.isEmpty else { return fail("--host needs an address") }
                    config.host = v
                case "--data":
                    let v = try scanner.value()
                    guard !v.isEmpty else { return fail("--data needs a directory") }
                    config.dataDirectory = v
                case "--manager-token-file":
                    tokenFile = try scanner.value()
                case "--menu":
                    menuFile = try scanner.value()
                case "--allow-host":
                    let v = try scanner.value()
                    guard HostCheck.isName(v) else { return fail("--allow-host needs a host name such as shop.local, not '\(v)'") }
                    config.allowedHosts.append(v.lowercased())
                case "--trusted-proxy":
                    let v = try scanner.value()
                    guard let range = AddressRange(v) else {
                        return fail("--trusted-proxy needs an address or ADDR/PREFIX such as 127.0.0.1/32 or fd00::/8, not '\(v)'")
                    }
                    config.trustedProxies.append(range)
                case "--log-level":
                    let v = try scanner.value()
                    guard let level = LogLevel(name: v) else {
                        return fail("--log-level must be one of \(LogLevel.allCases.map(\.name).joined(separator: ", ")), not '\(v)'")
                    }
                    config.logLevel = level
                default:
                    if flag.hasPrefix("--manager-token") {
                        return fail("there is no \(flag) flag: a token on the command line is visible in ps; use JUICE_MANAGER_TOKEN or --manager-token-file")
                    }
                    return fail(CommandLineError.unknownFlag(flag).description)
                }
            }
        } catch {
            return fail(error.description)
        }
        if let menuFile {
            switch MenuFile.load(path: menuFile) {
            case .success(let menu): config.menu = menu
            case .failure(let error): return .failure(UsageError(description: "juice-server: \(error)"))
            }
        }
        if printMenu { return .success(.printMenu(config.menu)) }
        switch ManagerToken.resolve(file: tokenFile, environment: environment) {
        case .success(let token): config.managerToken = token
        case .failure(let error): return .failure(error)
        }
        if let token = config.managerToken, let problem = ManagerToken.problem(token) {
            return fail(problem)
        }
        if config.managerToken == nil && !Socket.isLoopback(config.host) {
            return fail("refusing to listen on \(config.host) without a manager token: anyone on the network could change stock. Set JUICE_MANAGER_TOKEN (or --manager-token-file), or use a loopback address")
        }
        return .success(.run(config))
    }
}

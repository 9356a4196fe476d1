import Dispatch
import JuiceCore
import JuiceDomain
import JuicePlatform
import JuiceLog
import JuiceLoop

/// Everything the server is told at start. Defaults are the documented ones (`--help`).
public struct ServerConfig: Sendable {
    public var host = "127.0.0.1"
    public var port = 7878
    /// The HTTP side (board page, event stream, dashboard, metrics); nil: off (`--no-http`).
    public var httpPort: Int? = 7879
    /// Host names (lowercased) under which HTTP writes are taken besides IP literals and
    /// `localhost` (`--allow-host`, repeatable): the DNS-rebinding check.
    public var allowedHosts: [String] = []
    /// Protocols served besides the line protocol and HTTP (a test adds its own: see
    /// `protocols`).
    package var extraProtocols: [ProtocolListing] = []
    /// Stock of each fruit in a brand-new store (a menu file may give its own per fruit; an
    /// explicit `--initial-stock` overrides it).
    public var initialStock = 10
    public var initialStockOverridesMenu = false
    /// Where the journal and snapshots live; nil keeps everything in memory (`--in-memory`).
    public var dataDirectory: String? = "./juice-data"
    public var maxClients = 10_000
    /// Of `maxClients`, slots only known clients (the manager, paired tills) may take:
    /// strangers never fill them (`Admission`). 64: a shop's tills and manager pages need a
    /// dozen or two; the rest is room for new connections on probation while the anonymous
    /// slots are full.
    public var reservedClients = 64
    /// Most anonymous connections one address may hold at once (TCP and HTTP together; behind
    /// a trusted proxy, one forwarded client); nil: no limit but `maxClients`. Keeps one host
    /// (a runaway screen, a hostile client) from taking the slots everyone else needs. 32: a
    /// phone's browser holds at most 6 to one server, a screen 2 or 3.
    public var maxClientsPerAddress: Int? = 32
    /// A client whose unsent output passes this is disconnected as a slow consumer.
    public var maxOutputBytes = 1 << 20
    /// Close anonymous connections that showed no life for this long (seconds): nothing read
    /// from them and none of their output taken; nil: never. Known clients are never closed
    /// as idle. 300: well past an event stream's 15 s `: ping` and a client library's own
    /// keepalive PING, short enough that a flood of silent connections is gone in minutes.
    public var idleTimeoutSeconds: Int? = 300
    /// How long a graceful shutdown waits for clients to take what they are owed (their replies,
    /// `EVENT BYE`) before it closes them. 1.5: a client on the shop's Wi-Fi has it at once, and
    /// a stuck one does not hold a restart; a supervisor's own stop timeout (systemd's 15 s) stays
    /// well above it.
    public var shutdownTimeoutSeconds = 1.5
    /// RESTOCK and SET need `AUTH <token>` when set.
    public var managerToken: [UInt8]?
    /// Compact (snapshot + fresh journal) once the journal passes this size.
    public var journalMaxBytes = 64 << 20
    public var menu: Menu = .standard
    /// Start even if the menu drops a fruit the data directory still has in stock.
    public var acceptMenuChange = false
    /// How much is logged (`--log-level`).
    public var logLevel = LogLevel.info
    /// The idempotency key memory: how long a key is kept at least (`--key-retention`), how many
    /// keys it holds, and one address's share of them (`--keys-per-address`).
    package var keyPolicy = KeyMemory.Policy()
    /// The shop's business day: its time zone (`--timezone`) and when it starts (`--day-starts`).
    package var calendar = BusinessCalendar()
    /// What one client address may add to the lost-sales figures (`LostSalesAllowance`).
    public var lostSalesPerMinute = LostSalesAllowance.defaultPerMinute
    /// Reverse proxies whose `X-Forwarded-For` / `Forwarded` names the client (`--trusted-proxy`,
    /// repeatable; none by default). Their own connections are exempt from
    /// `maxClientsPerAddress`: one proxy carries every client behind it.
    public var trustedProxies: [AddressRange] = []
    /// How many wrong AUTH tokens one peer address may send, across connections, and for how long.
    public var authFailurePolicy = AuthFailureLimiter.Policy()
    /// The monotonic clock (nanoseconds) that AUTH failures are timed by: tests move it
    /// rather than wait a minute.
    package var authClock: @Sendable () -> UInt64 = { DispatchTime.now().uptimeNanoseconds }
    /// Seconds an HTTP client has to send its whole request head before it is closed
    /// (slowloris). Not a flag: a protocol constant (PROTOCOL.md Limits); tests set a short
    /// one rather than wait 10 s.
    package var httpRequestDeadline: UInt64 = 10
    /// Seconds between `: ping` comments on an open event stream (browsers and proxies time
    /// out idle streams; 15 s keeps well inside the usual 30-60 s). Not a flag, as above.
    package var eventStreamPingEvery = 15
    /// Seconds a connection admitted on probation (into the reserve, while its anonymous place
    /// was full) has to sign in. Not a flag: long enough for a till's first line or request
    /// over Wi-Fi, short enough that a flood of them holds the reserve only briefly.
    package var probationSeconds: UInt64 = 5
    /// Connections one address may have on probation at once (`Admission`).
    package var probationPerAddress = Admission.defaultProbationPerAddress

    public init() {}
}

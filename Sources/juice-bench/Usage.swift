/// Help texts. `juice-bench --help` shows the overview, `juice-bench <subcommand> --help` the
/// subcommand's own text; bad flags print the message plus the subcommand's usage (exit 2).

private let commonFlags = """
  Common options:
    --host H              server address, IPv4 (default 127.0.0.1)
    --port N              server port (default 7878)
    --warmup S            seconds of load before measuring, not counted (default 1)
    --duration S          seconds measured (default 5; idle: hold time, default 2)
    --drain S             after the window, max wait for outstanding replies/events (default 3)
    --connect-burst N     max connections being set up at once (default 200)
    --connect-timeout S   max seconds to get all connections of one kind ready (default 30)
    --json                print one JSON object on stdout instead of the table
    --no-progress         no progress line on stderr
"""

/// The server's side of orders, fanout, events and raw runs (not idle, chaos or burst).
private let serverFlags = """
  The server's CPU time and context switches per reply (orders, fanout, events, raw):
    --server-pid PID      the server's process id; without it, the one process holding the
                          listening socket of --port (found in /proc/net/tcp and /proc/*/fd;
                          needs loopback --host and the right to read that process's /proc)
  Read from /proc at the start and end of the measured window: CPU = utime + stime of the whole
  process (/proc/PID/stat, every thread, ended ones too; 10 ms ticks), switches = voluntary +
  involuntary of every thread (/proc/PID/task/*/status), also split by thread name. Unknown on
  macOS (no /proc). Per reply these move far less between runs than replies/s does.


"""

let generalUsage = """
usage: juice-bench <subcommand> [options]

A load generator for text line protocols: juice-server, and others (e.g. Redis inline
commands) measured by the same engine. One thread, non-blocking sockets, epoll (kqueue on
macOS).

Subcommands:
  orders   cashiers placing orders (ORDER <juice>), pipelined; orders/s and latency
  fanout   one cashier ordering one at a time while M displays receive EVENT STOCK lines
  events   the same with N browser event streams (GET /events, Server-Sent Events)
  idle     hold N idle connections (or event streams) and report the server's RSS per one
  raw      the same workloads against any line server (e.g. Redis)
  chaos    kill and restart a server of its own while tills sell; check exactly-once
  burst    a probe's PING round trip while N connections pipeline bursts and never read
  history  write a data directory with N days of the shop's history (for the report bursts)

orders, fanout, events and raw also report the server's CPU time and context switches per
reply, read from /proc (--server-pid, or the process listening on --port).

Run 'juice-bench <subcommand> --help' for its options.
Exit status: 0 ok, 1 cannot run / cannot connect / fan-out check failed, 2 bad usage.
"""

let ordersUsage = """
usage: juice-bench orders [--conns C] [--pipeline P] [--juice NAME] [--http-port H] [common options]

Sets every fruit of the juice's recipe to 1,000,000,000 first (one setup connection: AUTH with
$JUICE_MANAGER_TOKEN if set, MENU, SET <fruit> 1000000000), then C cashier connections send
EVENTS OFF and keep P 'ORDER <juice>' requests in flight each. Reports orders/s, latency per
request (from its write to its reply) and errors (replies starting ERR, e.g. OUT_OF_STOCK).

    --conns C             cashier connections (default 50)
    --pipeline P          requests in flight per connection (default 1)
    --juice NAME          juice to order (default mango-kiwi)
    --http-port H         order over HTTP instead: 'POST /orders' with {"juice": NAME} on port H,
                          HTTP/1.1 keep-alive, no Idempotency-Key (like S1's ORDER); a reply is an
                          error unless its status is 200; a 'Connection: close' answer is followed
                          by a new connection (reported as reconnects). The stock-up uses --port.


""" + serverFlags + commonFlags

let fanoutUsage = """
usage: juice-bench fanout [--watchers M] [--juice NAME] [common options]

Stocks up like 'orders', connects M displays (events on) and waits for their greetings, then one
cashier orders one juice at a time (the next ORDER only after the previous reply). Reports
events delivered/s over all displays, fan-out latency (order sent -> display got its EVENT
STOCK) and checks that every display got every seq, in order, with no gap or duplicate.

    --watchers M          display connections (default 1000)
    --juice NAME          juice to order (default mango-kiwi)


""" + serverFlags + commonFlags

let eventsUsage = """
usage: juice-bench events [--streams N] [--http-port N] [--juice NAME] [common options]

'fanout' with browsers instead of displays. Stocks up like 'orders' (on --port), opens N
event streams on the HTTP port (GET /events, Accept: text/event-stream) and waits for each
one's first message (the full state, whose id is where the stream starts), then one cashier
orders one juice at a time on --port. Reports events delivered/s over all streams, fan-out
latency (order sent -> stream got its message) and checks that every stream got every seq
(the id: line), in order, once, starting right after its full state.

    --streams N           event streams (default 1000)
    --http-port N         the server's HTTP port (default 7879); the cashier uses --port
    --juice NAME          juice to order (default mango-kiwi)


""" + serverFlags + commonFlags

let idleUsage = """
usage: juice-bench idle --pid PID [--conns N] [--greeting-lines N] [--probe LINE] [common options]
       juice-bench idle --pid PID --streams N [--http-port N] [common options]

Reads the server's VmRSS (/proc/PID/status; ps on macOS), opens N connections that stay
idle, waits until each is proven accepted (its greeting arrived, or its --probe got a reply),
holds them for --duration seconds and reads VmRSS again. Reports (after - before)/N, the memory each
connection costs the server (the headline), and after/N, the whole RSS divided by N.
With --streams the N connections are event streams (GET /events on the HTTP port), each
proven by its first message (the full state).

    --pid PID             the server's process id (required)
    --conns N             idle connections (default 1000)
    --streams N           idle event streams instead (juice-server's HTTP side)
    --http-port N         the HTTP port, with --streams (default 7879)
    --greeting-lines N    lines the server sends on connect (default 1; Redis: 0)
    --probe LINE          send LINE once per connection and wait for one reply line (e.g. PING
                          for Redis); required with --greeting-lines 0
    --reply-skip PREFIX   lines with PREFIX are not the probe's reply; repeatable


""" + commonFlags

let rawUsage = """
usage: juice-bench raw --request LINE [options]

The engine behind 'orders' and 'fanout', for any line server. A reply is one line (lines
starting with a --reply-skip prefix are ignored); replies starting 'ERR' or '-' are errors.
With --watchers > 0, watcher lines starting with an --event-match prefix are events, and the
k-th event on each watcher is attributed to the k-th request sent (exact with --conns 1
--pipeline 1: fan-out); the run checks that every watcher got one event per request.

    --request LINE        request line (CRLF appended); repeat to rotate between several
    --setup LINE          sent once per request connection, its reply read; repeatable
    --reply-skip PREFIX   lines with PREFIX on request connections are not replies; repeatable
    --greeting-lines N    lines every connection receives on connect, discarded (default 0)
    --conns C             request connections (default 1)
    --pipeline P          requests in flight per connection (default 1)
    --watchers M          read-only connections counting events (default 0)
    --watch-setup LINE    sent once per watcher (e.g. 'SUBSCRIBE stock'); repeatable
    --watch-setup-lines N reply lines to discard per watch-setup line (default 1; Redis
                          SUBSCRIBE: 6)
    --event-match PREFIX  watcher line with PREFIX = one event; repeatable
    --check-seq           events and replies carry seq=<n>: also check every watcher saw the
                          orders' seqs consecutively, no gap or duplicate

Redis example:
    sha=$(redis-cli -p 6379 SCRIPT LOAD "$(cat scripts/juice_order.lua)")
    juice-bench raw --port 6379 --conns 50 --pipeline 16 --request "EVALSHA $sha 2 mango kiwi 2 1"
    juice-bench raw --port 6379 --watchers 1000 --watch-setup 'SUBSCRIBE stock' \\
        --watch-setup-lines 6 --event-match message --request "EVALSHA $sha 2 mango kiwi 2 1"


""" + serverFlags + commonFlags

let burstUsage = """
usage: juice-bench burst [--attackers N] [--burst BYTES] [--attack LINE | --http-port H] [options]

Is anyone else answered while clients pipeline and never read? Connects a probe (line
connection, --port) and N attackers; then each attacker writes one burst (its line repeated
to BYTES, CRLF each) as fast as its socket takes it and never reads a byte, while the probe
sends its request, waits for the reply, pauses --probe-gap-ms, and again. Reports the probe's
round trip (p50, p99, max) over --duration seconds from the first attacker's write. A probe
still waiting at the end is waited for up to --drain more, and counts as the max.
--warmup is not used (the attack is the thing measured).

    --attackers N         connections that pipeline and never read (default 200)
    --burst BYTES         bytes each attacker writes (default 65536)
    --attack LINE         the attackers' line (default STATS); for Redis e.g. PING
    --http-port H         the attackers pipeline 'GET /state' (or --attack-path) over HTTP/1.1
                          on port H instead
    --attack-path PATH    the path HTTP attackers pipeline (default /state), e.g. /reports/day
    --attack-auth TOKEN   the manager token: line attackers send AUTH TOKEN first, HTTP ones a
                          bearer header on each request (for REPORT and the /reports routes)
    --healthz-port H      a second probe: GET /healthz kept alive on HTTP port H, timed apart
    --probe LINE          the probe's request (default PING)
    --probe-gap-ms N      pause after each reply before the next probe (default 1)
    --greeting-lines N    lines a line connection receives on connect (default 1; Redis: 0)
    --reply-skip PREFIX   probe lines with PREFIX are not its reply (default EVENT); repeatable

Redis example (the same attack):
    juice-bench burst --port 6379 --greeting-lines 0 --attack PING


""" + commonFlags

func usageText(for subcommand: String?) -> String {
    switch subcommand {
    case "orders": return ordersUsage
    case "fanout": return fanoutUsage
    case "events": return eventsUsage
    case "idle": return idleUsage
    case "raw": return rawUsage
    case "chaos": return chaosUsage
    case "burst": return burstUsage
    case "history": return historyUsage
    default: return generalUsage
    }
}

#!/usr/bin/env bash
# Side-by-side benchmark: juice-server (in memory, and durable) against Redis 7 (in memory, and
# appendfsync always) and the bare C line server ("limit"), all driven by the same juice-bench
# engine on the same machine, one server at a time.
#
# Scenarios (each against every server):
#   S1  orders, 50 connections, pipeline 1       orders/s, p99 latency
#   S2  orders, 50 connections, pipeline 16      orders/s, p99 latency
#   S3  fan-out: 1 cashier, 1,000 displays       events delivered/s, fan-out p99, check
#   S4  10,000 idle connections                  server RSS per connection
# juice-server only (its HTTP side; the other servers show '-'):
#   S5  fan-out to browsers: 1 cashier, 1,000 event streams (GET /events), like S3
#   S5b the same with 10,000 event streams
#   S6  10,000 idle event streams                server RSS per stream
#   S7  S1 over HTTP: 50 tills, POST /orders with keep-alive, pipeline 1   orders/s, p99 latency
#       (printed beside S1, with S7/S1; the target is >= 0.5x)
# Beside S1, S2, S3 and S7 throughput, each server's CPU time per reply (per event for S3) and
# context switches per reply over the same window (juice-bench --server-pid: from /proc).
# A fair loop (juice-bench burst): a probe's PING round trip, p50/p99/max, while 200 connections
# each write 64 KiB of pipelined requests and never read (the target: max under 100 ms):
#   S8  the attackers send PING lines                 (juice-server and Redis)
#   S8s the attackers send STATS lines                (juice-server only)
#   S8h the attackers pipeline GET /state over HTTP   (juice-server only)
# The same on a store with 430 days of history (juice-bench history; juice-server with a data
# directory and a manager token, so the juice-dur and base-dur columns only); the probe's PING
# and a second probe's GET /healthz, p50 and max (the target: both under 100 ms):
#   S8r the attackers send AUTH, then REPORT <a day a month ago>
#   S8c the attackers pipeline GET /reports/days.csv over 400 days
#   S8d the attackers pipeline GET /reports/day (today)
#   S8b the attackers pipeline GET /backup (the whole 430-day store, about 1 MB) while a
#       manager restocks every 50 ms, so that backups are encoded again, not served from the
#       one kept until the journal moves (issue 35: "during a backup", target < 100 ms)
#
# Usage: scripts/bench.sh [--quick] [--no-fanout] [--no-events] [--no-idle] [--no-dur] [--no-redis]
#                         [--no-limit] [--no-http-orders] [--no-burst] [--no-reports] [--help]
#   --quick       smoke run: 1 s windows, 100 displays and streams, 1,000 idle connections
#   --no-fanout   skip S3;  --no-events: skip S5, S5b, S6;  --no-idle: skip S4 and S6
#   --no-http-orders  skip S7;  --no-burst: skip S8, S8s, S8h, S8r, S8c, S8d, S8b;  --no-reports: S8r, S8c, S8d, S8b
#   --no-dur, --no-redis, --no-limit: skip those columns (juice-dur; redis-mem and redis-dur; limit)
# Old and new side by side: BASELINE_SERVER=/path/to/an/older/juice-server adds its columns
#   (base-mem, base-dur; S1-S5b, or S1-S4 if it has no HTTP side) and new/old ratios.
# Environment: DURATION (5) WARMUP (1) CONNS (50) WATCHERS (1000) STREAMS (1000)
#              MANY_STREAMS (10000) IDLE_CONNS (10000, also the idle streams)
#              ATTACKERS (200) BURST (65536, bytes per attacker)
#              SCRATCH (build dir, default <repo>/.build-release)  RESULTS_DIR (keep the JSON)
# Only loopback (127.0.0.1) is used. Every process started here is stopped on exit.
set -euo pipefail

usage() {
    # The comment block at the top of this file, without the '# '.
    awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"
}

quick=0
run_fanout=1
run_events=1
run_idle=1
run_dur=1
run_redis=1
run_limit=1
run_http_orders=1
run_burst=1
run_reports=1
while [ $# -gt 0 ]; do
    case "$1" in
        --quick) quick=1 ;;
        --no-fanout) run_fanout=0 ;;
        --no-events) run_events=0 ;;
        --no-idle) run_idle=0 ;;
        --no-dur) run_dur=0 ;;
        --no-redis) run_redis=0 ;;
        --no-limit) run_limit=0 ;;
        --no-http-orders) run_http_orders=0 ;;
        --no-burst) run_burst=0 ;;
        --no-reports) run_reports=0 ;;
        -h | --help) usage; exit 0 ;;
        *) echo "bench.sh: unknown option $1" >&2; usage >&2; exit 2 ;;
    esac
    shift
done

# setting NAME FULL QUICK: NAME from the environment, else its default for a full or a --quick run.
setting() {
    local default=$2
    if [ "$quick" = 1 ]; then default=$3; fi
    printf -v "$1" '%s' "${!1:-$default}"
}
setting DURATION 5 1
setting WARMUP 1 0.5
setting CONNS 50 50
setting WATCHERS 1000 100
setting STREAMS 1000 100
setting MANY_STREAMS 10000 1000
setting IDLE_CONNS 10000 1000
setting ATTACKERS 200 200
setting BURST 65536 65536

repo=$(cd "$(dirname "$0")/.." && pwd)
SCRATCH=${SCRATCH:-$repo/.build-release}
shared="$repo/../shared/bench"

log() { echo "bench.sh: $*" >&2; }

# ---------------------------------------------------------------------------------------------
# Processes and cleanup

workdir=$(mktemp -d "${TMPDIR:-/tmp}/juice-bench.XXXXXX")
started_pids=()

stop_pid() {
    local pid=$1
    kill -TERM "$pid" 2>/dev/null || return 0
    for _ in $(seq 1 50); do
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.1
    done
    kill -KILL "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
}

cleanup() {
    local pid
    for pid in "${started_pids[@]+"${started_pids[@]}"}"; do
        stop_pid "$pid"
    done
    if [ -n "${RESULTS_DIR:-}" ]; then
        if mkdir -p "$RESULTS_DIR"; then
            cp "$workdir"/*.json "$workdir"/*.log "$RESULTS_DIR"/ 2>/dev/null || true
        fi
    fi
    rm -rf "$workdir"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# The 10,000-connection scenarios need 10,000+ descriptors in the server and in juice-bench.
most_conns=$IDLE_CONNS
if [ "$MANY_STREAMS" -gt "$most_conns" ]; then most_conns=$MANY_STREAMS; fi
ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
if [ "$(ulimit -n)" != unlimited ] && [ "$(ulimit -n)" -lt $((most_conns + 200)) ]; then
    log "warning: ulimit -n is $(ulimit -n), too low for $most_conns connections (raise the hard limit)"
fi

free_port() {
    if command -v python3 >/dev/null 2>&1; then
        python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
        return
    fi
    local port
    while :; do
        port=$((20000 + RANDOM % 40000))
        if ! (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
            echo "$port"
            return
        fi
    done
}

# Waits until a line matching $2 appears in file $1 (10 s at most).
wait_for_line() {
    local file=$1 pattern=$2
    for _ in $(seq 1 100); do
        grep -q "$pattern" "$file" 2>/dev/null && return 0
        sleep 0.1
    done
    return 1
}

# ---------------------------------------------------------------------------------------------
# Build

log "building juice-server and juice-bench (release, scratch $SCRATCH)"
(cd "$repo" && swift build -c release --scratch-path "$SCRATCH" --product juice-server >&2 \
    && swift build -c release --scratch-path "$SCRATCH" --product juice-bench >&2)
bin=$(cd "$repo" && swift build -c release --scratch-path "$SCRATCH" --show-bin-path)
bench="$bin/juice-bench"
server="$bin/juice-server"

lua=""
for candidate in "$shared/juice_order.lua" "$repo/scripts/juice_order.lua"; do
    if [ -f "$candidate" ]; then lua=$candidate; break; fi
done

if [ "$run_redis" = 1 ] && ! command -v redis-server >/dev/null 2>&1; then
    log "redis-server is not installed: skipping the Redis columns (install: apt-get install redis-server)"
    run_redis=0
fi
if [ "$run_redis" = 1 ] && ! command -v redis-cli >/dev/null 2>&1; then
    log "redis-cli is not installed: skipping the Redis columns (install: apt-get install redis-tools)"
    run_redis=0
fi
limit_server=""
if [ "$run_limit" = 1 ]; then
    if [ -f "$shared/limit_server.c" ] && command -v gcc >/dev/null 2>&1; then
        gcc -O2 -o "$workdir/limit_server" "$shared/limit_server.c" && limit_server="$workdir/limit_server"
    else
        log "no $shared/limit_server.c or no gcc: skipping the limit column"
        run_limit=0
    fi
fi

# ---------------------------------------------------------------------------------------------
# Results: one JSON file per target and scenario; figures are pulled out with grep, so
# nothing beyond bash and coreutils is needed.

# json_get FILE KEY [OBJECT]: a top-level value, or one inside a flat nested object.
json_get() {
    local file=$1 key=$2 object=${3:-} text
    [ -s "$file" ] || return 0
    text=$(cat "$file")
    if [ -n "$object" ]; then
        text=$(grep -o "\"$object\":{[^}]*}" <<<"$text" || true)
    fi
    grep -o "\"$key\":[^,}]*" <<<"$text" | head -1 | cut -d: -f2- | tr -d '"' || true
}

# run_bench TARGET SCENARIO ARGS...: runs juice-bench with a time bound; a failure leaves an
# empty result (shown as "fail") and the reason on stderr, and the next scenario runs.
run_bench() {
    local target=$1 scenario=$2
    shift 2
    local out="$workdir/$target-$scenario.json" err="$workdir/$target-$scenario.log"
    local bound
    bound=$(awk -v d="$DURATION" -v w="$WARMUP" 'BEGIN { printf "%d", d + w + 90 }')
    log "$target $scenario: juice-bench $*"
    if ! timeout "$bound" "$bench" "$@" --json --no-progress >"$out" 2>"$err"; then
        log "$target $scenario failed: $(tail -n 3 "$err" | tr '\n' ' ')"
        # A failed fan-out check still wrote its figures; keep them (the check column says failed).
        grep -q '"fanout_check":"failed"' "$out" 2>/dev/null || : >"$out"
    fi
}

timing=(--duration "$DURATION" --warmup "$WARMUP")
burst_args=(--attackers "$ATTACKERS" --burst "$BURST" --duration "$DURATION")

# Scenarios against juice-server at $1 (port), $2 (HTTP port), pid $3, under the result name $4.
juice_scenarios() {
    local port=$1 http_port=$2 pid=$3 name=$4
    local measured=("${timing[@]}" --server-pid "$pid")
    run_bench "$name" S1 orders --port "$port" --conns "$CONNS" --pipeline 1 "${measured[@]}"
    if [ "$run_http_orders" = 1 ] && [ -n "$http_port" ] && [ "$takes_http_orders" = 1 ]; then
        run_bench "$name" S7 orders --port "$port" --http-port "$http_port" --conns "$CONNS" --pipeline 1 "${measured[@]}"
    fi
    run_bench "$name" S2 orders --port "$port" --conns "$CONNS" --pipeline 16 "${measured[@]}"
    if [ "$run_fanout" = 1 ]; then
        run_bench "$name" S3 fanout --port "$port" --watchers "$WATCHERS" "${measured[@]}"
    fi
    if [ "$run_idle" = 1 ]; then
        run_bench "$name" S4 idle --port "$port" --pid "$pid" --conns "$IDLE_CONNS" --duration 2
    fi
    if [ "$run_events" = 1 ] && [ -n "$http_port" ]; then
        run_bench "$name" S5 events --port "$port" --http-port "$http_port" --streams "$STREAMS" "${measured[@]}"
        run_bench "$name" S5b events --port "$port" --http-port "$http_port" --streams "$MANY_STREAMS" "${measured[@]}"
    fi
    if [ "$run_burst" = 1 ]; then
        run_bench "$name" S8 burst --port "$port" --attack PING "${burst_args[@]}"
        run_bench "$name" S8s burst --port "$port" --attack STATS "${burst_args[@]}"
        if [ -n "$http_port" ]; then
            run_bench "$name" S8h burst --port "$port" --http-port "$http_port" "${burst_args[@]}"
        fi
    fi
}

# The report bursts, against a server on a store with 430 days of history and a manager token
# (REPORT and /reports are the manager's), started by start_juice.
juice_report_scenarios() {
    local port=$1 http_port=$2 name=$4
    [ -n "$http_port" ] || return 0
    local token=(--attack-auth "$(cat "$workdir/manager-token")") probes=(--healthz-port "$http_port")
    local month_ago first today
    month_ago=$(date -u -d '-30 days' +%F)
    first=$(date -u -d '-399 days' +%F)
    today=$(date -u +%F)
    run_bench "$name" S8r burst --port "$port" --attack "REPORT $month_ago" "${token[@]}" "${probes[@]}" "${burst_args[@]}"
    run_bench "$name" S8c burst --port "$port" --http-port "$http_port" --attack-path "/reports/days.csv?from=$first&to=$today" \
        "${token[@]}" "${probes[@]}" "${burst_args[@]}"
    run_bench "$name" S8d burst --port "$port" --http-port "$http_port" --attack-path /reports/day "${token[@]}" "${probes[@]}" "${burst_args[@]}"
    backup_writer "$port" "$(cat "$workdir/manager-token")" &
    local writer=$!
    run_bench "$name" S8b burst --port "$port" --http-port "$http_port" --attack-path /backup "${token[@]}" "${probes[@]}" "${burst_args[@]}"
    kill "$writer" 2>/dev/null || true
    wait "$writer" 2>/dev/null || true
}

# backup_writer PORT TOKEN: the manager restocks a kiwi every 50 ms over the line protocol (its
# replies left unread: a few hundred fit in the socket's buffer), so the journal moves between
# backups. bash's /dev/tcp: no tool needed.
backup_writer() {
    exec 3<>"/dev/tcp/127.0.0.1/$1" || return 0
    printf 'EVENTS OFF\r\nAUTH %s\r\n' "$2" >&3
    while printf 'RESTOCK kiwi 1\r\n' >&3 2>/dev/null; do sleep 0.05; done
}

# report_store DIR: a new data directory with 430 days of history, up to today (UTC).
report_store() {
    rm -rf "$1"
    "$bench" history --data "$1" --days 430 >&2
}

# S6 gets a server of its own: memory freed by the earlier scenarios' connections would be
# reused by the streams and hide their cost.
juice_idle_streams() {
    local http_port=$2 pid=$3 name=$4
    [ -n "$http_port" ] || return 0
    run_bench "$name" S6 idle --pid "$pid" --http-port "$http_port" --streams "$IDLE_CONNS" --duration 2
}

# start_juice NAME SCENARIOS LOG ARGS...: starts juice-server with ARGS, runs the function
# SCENARIOS against it, stops it.
start_juice() {
    local name=$1 scenarios=$2 out="$workdir/$3"
    shift 3
    local binary=$server http=(--http-port 0) capacity=()
    takes_http_orders=1
    if [ "${name#base-}" != "$name" ]; then
        binary=$BASELINE_SERVER
        # An older build may have no HTTP side (and no --http-port flag).
        # (Read whole, not piped into grep -q: an early exit would SIGPIPE the server's --help.)
        case "$("$binary" --help 2>/dev/null)" in *--http-port*) ;; *) http=() ;; esac
        # POST /orders came with --allow-host (issue 18); an older build answers it 405.
        case "$("$binary" --help 2>/dev/null)" in *--allow-host*) ;; *) takes_http_orders=0 ;; esac
    fi
    # Every benchmark client connects from 127.0.0.1, thousands at once, and S4/S6 hold them
    # idle: no share per address and no idle timeout here (a build from before issue 31 has
    # neither, and refuses 0 for them).
    case "$("$binary" --help 2>/dev/null)" in *--reserved-clients*) capacity=(--max-clients-per-address 0 --idle-timeout 0) ;; esac
    "$binary" --port 0 "${http[@]+"${http[@]}"}" "${capacity[@]+"${capacity[@]}"}" --max-clients $((most_conns + WATCHERS + 100)) "$@" >"$out" 2>&1 &
    local pid=$!
    started_pids+=("$pid")
    if ! wait_for_line "$out" "listening on" || { [ ${#http[@]} -gt 0 ] && ! wait_for_line "$out" "board on http"; }; then
        log "juice-server ($name) did not start: $(tail -n 3 "$out" | tr '\n' ' ')"
        return 1
    fi
    local port http_port
    port=$(grep -o 'listening on [0-9.]*:[0-9]*' "$out" | head -1 | sed 's/.*://')
    http_port=$(grep -o 'board on http://[0-9.]*:[0-9]*' "$out" | head -1 | sed 's/.*://')
    "$scenarios" "$port" "$http_port" "$pid" "$name"
    stop_pid "$pid"
}

redis_scenarios() {
    local name=$1
    shift
    local port pid sha
    port=$(free_port)
    redis-server --port "$port" --bind 127.0.0.1 --daemonize no --maxclients $((IDLE_CONNS + WATCHERS + 100)) \
        "$@" >"$workdir/$name-server.log" 2>&1 &
    pid=$!
    started_pids+=("$pid")
    for _ in $(seq 1 100); do
        [ "$(redis-cli -p "$port" PING 2>/dev/null)" = PONG ] && break
        sleep 0.1
    done
    redis-cli -p "$port" SET mango 1000000000 >/dev/null
    redis-cli -p "$port" SET kiwi 1000000000 >/dev/null
    sha=$(redis-cli -p "$port" SCRIPT LOAD "$(cat "$lua")")
    local order="EVALSHA $sha 2 mango kiwi 2 1"
    local measured=("${timing[@]}" --server-pid "$pid")
    run_bench "$name" S1 raw --port "$port" --conns "$CONNS" --pipeline 1 --request "$order" "${measured[@]}"
    run_bench "$name" S2 raw --port "$port" --conns "$CONNS" --pipeline 16 --request "$order" "${measured[@]}"
    if [ "$run_fanout" = 1 ]; then
        run_bench "$name" S3 raw --port "$port" --conns 1 --pipeline 1 --request "$order" --watchers "$WATCHERS" \
            --watch-setup 'SUBSCRIBE stock' --watch-setup-lines 6 --event-match message "${measured[@]}"
    fi
    if [ "$run_idle" = 1 ]; then
        run_bench "$name" S4 idle --port "$port" --pid "$pid" --conns "$IDLE_CONNS" --greeting-lines 0 --probe PING --duration 2
    fi
    if [ "$run_burst" = 1 ]; then
        run_bench "$name" S8 burst --port "$port" --greeting-lines 0 --attack PING "${burst_args[@]}"
    fi
    stop_pid "$pid"
}

# The bare C server: answers OK to each line; a second instance with --broadcast also sends an
# EVENT line to every client per line (the least work a fan-out can cost).
limit_scenarios() {
    local port pid
    port=$(free_port)
    "$limit_server" --port "$port" >"$workdir/limit-server.log" 2>&1 &
    pid=$!
    started_pids+=("$pid")
    wait_for_line "$workdir/limit-server.log" "listening" || true
    local measured=("${timing[@]}" --server-pid "$pid")
    run_bench limit S1 raw --port "$port" --conns "$CONNS" --pipeline 1 --request 'ORDER mango-kiwi' "${measured[@]}"
    run_bench limit S2 raw --port "$port" --conns "$CONNS" --pipeline 16 --request 'ORDER mango-kiwi' "${measured[@]}"
    if [ "$run_idle" = 1 ]; then
        run_bench limit S4 idle --port "$port" --pid "$pid" --conns "$IDLE_CONNS" --greeting-lines 0 --probe PING --duration 2
    fi
    stop_pid "$pid"
    if [ "$run_fanout" = 1 ]; then
        port=$(free_port)
        "$limit_server" --port "$port" --broadcast >"$workdir/limit-broadcast.log" 2>&1 &
        pid=$!
        started_pids+=("$pid")
        wait_for_line "$workdir/limit-broadcast.log" "listening" || true
        measured=("${timing[@]}" --server-pid "$pid")
        run_bench limit S3 raw --port "$port" --conns 1 --pipeline 1 --request 'ORDER mango-kiwi' --watchers "$WATCHERS" \
            --reply-skip EVENT --event-match EVENT "${measured[@]}"
        stop_pid "$pid"
    fi
}

# ---------------------------------------------------------------------------------------------
# Run

start_juice juice-mem juice_scenarios juice-mem-server.log --in-memory || true
if [ "$run_events" = 1 ] && [ "$run_idle" = 1 ]; then
    start_juice juice-mem juice_idle_streams juice-mem-server-S6.log --in-memory || true
fi
if [ "$run_dur" = 1 ]; then
    mkdir -p "$workdir/juice-data" "$workdir/juice-data-S6"
    start_juice juice-dur juice_scenarios juice-dur-server.log --data "$workdir/juice-data" || true
    if [ "$run_events" = 1 ] && [ "$run_idle" = 1 ]; then
        start_juice juice-dur juice_idle_streams juice-dur-server-S6.log --data "$workdir/juice-data-S6" || true
    fi
fi
if [ "$run_burst" = 1 ] && [ "$run_reports" = 1 ]; then
    echo "bench-report-token" >"$workdir/manager-token"
    report_store "$workdir/history"
    start_juice juice-dur juice_report_scenarios juice-dur-reports.log --data "$workdir/history" --timezone UTC \
        --manager-token-file "$workdir/manager-token" || true
    if [ -n "${BASELINE_SERVER:-}" ]; then
        report_store "$workdir/base-history"
        start_juice base-dur juice_report_scenarios base-dur-reports.log --data "$workdir/base-history" --timezone UTC \
            --manager-token-file "$workdir/manager-token" || true
    fi
fi
if [ -n "${BASELINE_SERVER:-}" ]; then
    start_juice base-mem juice_scenarios base-mem-server.log --in-memory || true
    if [ "$run_dur" = 1 ]; then
        mkdir -p "$workdir/base-data"
        start_juice base-dur juice_scenarios base-dur-server.log --data "$workdir/base-data" || true
    fi
fi
if [ "$run_redis" = 1 ]; then
    mkdir -p "$workdir/redis-data"
    redis_scenarios redis-mem --save '' --appendonly no
    redis_scenarios redis-dur --save '' --appendonly yes --appendfsync always --dir "$workdir/redis-data"
fi
if [ "$run_limit" = 1 ]; then
    limit_scenarios
fi

# ---------------------------------------------------------------------------------------------
# Table

targets=(juice-mem juice-dur redis-mem redis-dur limit)
if [ -n "${BASELINE_SERVER:-}" ]; then targets+=(base-mem base-dur); fi

# figure TARGET SCENARIO METRIC: one number (or word) for a table cell; "-" if not run.
figure() {
    local target=$1 scenario=$2 metric=$3 file="$workdir/$1-$2.json"
    if [ ! -e "$file" ]; then echo "-"; return; fi
    if [ ! -s "$file" ]; then echo "fail"; return; fi
    local value
    case "$metric" in
        rate) value=$(json_get "$file" replies_per_s) ;;
        p99) value=$(json_get "$file" p99 latency_us) ;;
        events) value=$(json_get "$file" events_per_s) ;;
        fanout_p99) value=$(json_get "$file" p99 fanout_us) ;;
        check) value=$(json_get "$file" fanout_check) ;;
        kib_per_conn) value=$(awk -v b="$(json_get "$file" rss_per_conn_bytes)" 'BEGIN { printf "%.2f", b / 1024 }') ;;
        probe_p50 | probe_p99 | probe_max) value=$(json_get "$file" "${metric#probe_}" probe_us) ;;
        healthz_p50 | healthz_max) value=$(json_get "$file" "${metric#healthz_}" healthz_us) ;;
        # The server's figures over the window (juice-bench reads them from /proc; the
        # process-wide members come before its per-thread list, so the first match is theirs).
        cpu) value=$(json_get "$file" cpu_us_per_reply server) ;;
        cpu_event) value=$(json_get "$file" cpu_us_per_event server) ;;
        switches) value=$(json_get "$file" switches_per_reply server) ;;
    esac
    case "$metric" in
        cpu | cpu_event) [ -n "$value" ] && [ "$value" != null ] && value=$(awk -v v="$value" 'BEGIN { printf "%.2f", v }') ;;
        switches) [ -n "$value" ] && [ "$value" != null ] && value=$(awk -v v="$value" 'BEGIN { printf "%.3f", v }') ;;
    esac
    case "$metric" in
        rate | events | p99 | fanout_p99 | probe_p50 | probe_p99 | probe_max | healthz_p50 | healthz_max) value=$(awk -v v="$value" 'BEGIN { printf "%.0f", v }') ;;
    esac
    echo "${value:--}"
}

ratio() {
    awk -v a="$1" -v b="$2" 'BEGIN { if (a + 0 > 0 && b + 0 > 0) printf "%.2f", a / b; else printf "-" }'
}

print_row() {
    local label=$1 scenario=$2 metric=$3
    local cells=() target
    for target in "${targets[@]}"; do
        cells+=("$(figure "$target" "$scenario" "$metric")")
    done
    printf '%-40s' "$label"
    printf '%12s' "${cells[@]}"
    if [ "$metric" = check ]; then
        echo
    elif [ -n "${BASELINE_SERVER:-}" ]; then
        printf '%12s%12s%12s%12s\n' "$(ratio "${cells[0]}" "${cells[2]}")" "$(ratio "${cells[1]}" "${cells[3]}")" \
            "$(ratio "${cells[0]}" "${cells[5]}")" "$(ratio "${cells[1]}" "${cells[6]}")"
    else
        printf '%12s%12s\n' "$(ratio "${cells[0]}" "${cells[2]}")" "$(ratio "${cells[1]}" "${cells[3]}")"
    fi
}

# The rows of an orders scenario: orders/s (`what` says how they were sent), p99, and the
# server's CPU and context switches per reply.
print_order_rows() {
    local scenario=$1 what=$2
    print_row "$scenario orders/s $what" "$scenario" rate
    print_row "$scenario p99 latency us" "$scenario" p99
    print_row "$scenario server CPU us per reply" "$scenario" cpu
    print_row "$scenario server switches per reply" "$scenario" switches
}

# The rows of an event-stream scenario: events/s (`what`: to how many streams), fan-out p99
# and the check.
print_stream_rows() {
    local scenario=$1 what=$2
    print_row "$scenario events/s $what" "$scenario" events
    print_row "$scenario fan-out p99 us" "$scenario" fanout_p99
    print_row "$scenario check" "$scenario" check
}

# The rows of a report scenario: the probe's p50 and max (`max_note` after its label) and
# /healthz's while `what` is asked.
print_report_rows() {
    local scenario=$1 what=$2 max_note=${3:-}
    print_row "$scenario probe p50 us ($what)" "$scenario" probe_p50
    print_row "$scenario probe max us${max_note:+ $max_note}" "$scenario" probe_max
    print_row "$scenario /healthz p50 us" "$scenario" healthz_p50
    print_row "$scenario /healthz max us" "$scenario" healthz_max
}

echo
echo "juice-bench side by side: ${DURATION} s measured after ${WARMUP} s warm-up; $(nproc 2>/dev/null || echo '?') cores shared by server and load generator"
printf '%-40s' "scenario"
printf '%12s' juice-mem juice-dur redis-mem redis-dur limit
if [ -n "${BASELINE_SERVER:-}" ]; then printf '%12s' base-mem base-dur; fi
printf '%12s' "jmem/rmem" "jdur/rdur"
if [ -n "${BASELINE_SERVER:-}" ]; then printf '%12s' "mem/base" "dur/base"; fi
echo
print_order_rows S1 "($CONNS conns, pipeline 1)"
if [ "$run_http_orders" = 1 ]; then
    print_order_rows S7 "over HTTP ($CONNS, keep-alive)"
fi
print_order_rows S2 "($CONNS conns, pipeline 16)"
if [ "$run_fanout" = 1 ]; then
    print_row "S3 events/s (1 cashier, $WATCHERS displays)" S3 events
    print_row "S3 fan-out p99 us" S3 fanout_p99
    print_row "S3 server CPU us per event" S3 cpu_event
    print_row "S3 fan-out check" S3 check
fi
if [ "$run_idle" = 1 ]; then
    print_row "S4 KiB per idle conn ($IDLE_CONNS)" S4 kib_per_conn
fi
if [ "$run_events" = 1 ]; then
    print_stream_rows S5 "(1 cashier, $STREAMS streams)"
    print_stream_rows S5b "($MANY_STREAMS streams)"
    if [ "$run_idle" = 1 ]; then
        print_row "S6 KiB per idle stream ($IDLE_CONNS)" S6 kib_per_conn
    fi
fi
if [ "$run_burst" = 1 ]; then
    print_row "S8 probe p50 us ($ATTACKERS x $((BURST / 1024))K PING)" S8 probe_p50
    print_row "S8 probe p99 us" S8 probe_p99
    print_row "S8 probe max us (target < 100000)" S8 probe_max
    print_row "S8s probe p99 us (STATS bursts)" S8s probe_p99
    print_row "S8s probe max us" S8s probe_max
    print_row "S8h probe p99 us (GET /state, HTTP)" S8h probe_p99
    print_row "S8h probe max us" S8h probe_max
    if [ "$run_reports" = 1 ]; then
        print_report_rows S8r "REPORT, 430 days" "(target < 100000)"
        print_report_rows S8c "days.csv, 400 days"
        print_report_rows S8d "/reports/day"
        print_report_rows S8b "GET /backup, 430 days, while restocking" "(target < 100000)"
    fi
fi
echo
if [ "$run_fanout" = 1 ] && [ "$run_events" = 1 ]; then
    # The HTTP side's target is relative to the line protocol's fan-out, in the same run.
    for target in juice-mem juice-dur; do
        [ -e "$workdir/$target-S5.json" ] || continue
        echo "$target S5 / S3 (browsers / displays): events/s $(ratio "$(figure "$target" S5 events)" "$(figure "$target" S3 events)")x," \
            "fan-out p99 $(ratio "$(figure "$target" S5 fanout_p99)" "$(figure "$target" S3 fanout_p99)")x" \
            "(target: events/s >= 0.8x, p99 <= 2x)"
    done
fi
if [ "$run_http_orders" = 1 ]; then
    # Selling from a browser, against selling over the line protocol, in the same run.
    for target in juice-mem juice-dur; do
        [ -e "$workdir/$target-S7.json" ] || continue
        echo "$target S7 / S1 (HTTP / TCP orders): orders/s $(ratio "$(figure "$target" S7 rate)" "$(figure "$target" S1 rate)")x," \
            "p99 $(ratio "$(figure "$target" S7 p99)" "$(figure "$target" S1 p99)")x (target: orders/s >= 0.5x)"
    done
fi
echo "Server CPU and switches per reply: the server process's utime+stime and all its threads' context"
echo "switches over the measured window (/proc), divided by the replies; these move far less between"
echo "runs than orders/s does on a shared machine. Ratios below 1 are better for them."
echo "redis-dur = appendonly yes, appendfsync always; juice-dur = --data (journal). limit = bare C server"
echo "(OK to every line; S3 with --broadcast). Ratios juice/redis: above 1 is better for orders/s and"
echo "events/s, below 1 is better for latency and memory. '-' = not run, 'fail' = see the log above."

#!/usr/bin/env bash
# One-command demo of the juice stand, in tmux:
#   left: juice-board (the live stock display)
#   right: two nc cashier panes to type commands in, and a scripted rush of orders and restocks.
#
# usage: scripts/demo.sh [--no-attach] [-- juice-board options, e.g. --lang ko]
#   --no-attach     start the session detached, print its name and leave it running
#                   (or DEMO_NO_ATTACH=1); it is cleaned up when the session is killed.
# environment:
#   DEMO_SKIP_BUILD=1       use what is already built
#   DEMO_SCRATCH_PATH=DIR   swift build --scratch-path DIR
#   DEMO_RUSH_ORDERS=N      how many orders the rush pane places (default 300)
#
# Everything runs on 127.0.0.1: a fresh server (temporary data directory, a free port) that is
# stopped, and its directory removed, when the demo ends (detach with Ctrl-b d, or kill the session).
set -euo pipefail

HOST=127.0.0.1

# ---------------------------------------------------------------------------------------------
# Pane programs (the script runs itself inside tmux with one of these first arguments).

# A cashier: a banner with what to type, then nc to the server.
cashier() {
  local number=$1 port=$2
  printf '\033[1mCashier %s\033[0m  (nc %s %s)\n' "$number" "$HOST" "$port"
  echo "Type a command and Enter:  MENU   STOCK   ORDER <juice> [count]   RESTOCK <fruit> <n>   HELP"
  echo "Korean names work too. Ctrl-C closes this cashier."
  # Events off, so the stock stream (the board's job) does not bury what the cashier types.
  { printf 'EVENTS OFF\r\n'; cat; } | nc "$HOST" "$port"
}

# Reads one reply line from fd 3, without the CR.
read_reply() {
  local line
  IFS= read -r -t 10 line <&3 || return 1
  printf '%s\n' "${line%$'\r'}"
}

# Sends one command on fd 3 and reads its reply (events are off on this connection).
ask() {
  printf '%s\r\n' "$1" >&3
  read_reply
}

# The scripted rush: orders at a changing pace, a burst now and then, restocks when a fruit runs
# out. Juice and fruit names come from the server (MENU, STOCK): nothing is hard-coded.
rush() {
  local port=$1 total=${DEMO_RUSH_ORDERS:-300}
  exec 3<>"/dev/tcp/$HOST/$port"
  read_reply >/dev/null                      # the greeting
  ask "EVENTS OFF" >/dev/null
  local menu stock token
  menu=$(ask "MENU")
  stock=$(ask "STOCK")
  local -a juices=() fruits=()
  for token in ${menu#OK MENU }; do juices+=("${token%%=*}"); done
  for token in ${stock#OK STOCK seq=* }; do fruits+=("${token%%=*}"); done
  printf '\033[1mRush\033[0m: %s orders of %s juices, restocking %s fruits as they run out\n' \
    "$total" "${#juices[@]}" "${#fruits[@]}"
  sleep 3 # let the audience look at the board first

  local i reply juice need
  local started=$SECONDS
  for ((i = 1; i <= total && SECONDS - started < 300; i++)); do
    juice=${juices[RANDOM % ${#juices[@]}]}
    reply=$(ask "ORDER $juice $((RANDOM % 3 + 1))") || { echo "server gone"; return 0; }
    echo "$reply"
    if [[ $reply == "ERR OUT_OF_STOCK"* ]]; then
      # "ERR OUT_OF_STOCK needs strawberry=20 has strawberry=10": restock what was needed.
      for need in ${reply#*needs }; do
        [[ $need == has ]] && break
        ask "RESTOCK ${need%%=*} $(( ${need#*=} + RANDOM % 20 ))"
      done
    fi
    if ((i % 60 == 0)); then
      # A burst: 200 changes pipelined in one go. The board coalesces them into a few redraws.
      echo "-- burst of 200 changes --"
      local b fruit
      for ((b = 0; b < 200; b++)); do
        fruit=${fruits[b % ${#fruits[@]}]}
        printf 'RESTOCK %s 1\r\n' "$fruit" >&3
      done
      for ((b = 0; b < 200; b++)); do read_reply >/dev/null || return 0; done
    fi
    sleep "0.$((RANDOM % 4 + 1))"
  done
  echo "Rush over. Type in the cashier panes; Ctrl-b d ends the demo."
  exec 3>&-
}

# After a detached demo: wait for the tmux session to end, then stop the server and remove
# the data directory.
cleanup_after() {
  local session=$1 server_pid=$2 workdir=$3
  while tmux has-session -t "$session" 2>/dev/null; do sleep 1; done
  if [[ $(ps -p "$server_pid" -o comm= 2>/dev/null) == juice-server* ]]; then
    kill -TERM "$server_pid" 2>/dev/null || true
    for _ in $(seq 1 50); do kill -0 "$server_pid" 2>/dev/null || break; sleep 0.1; done
  fi
  rm -rf "$workdir"
}

case "${1:-}" in
  --cashier) cashier "$2" "$3"; exit ;;
  --rush) rush "$2"; exit ;;
  --cleanup-after) cleanup_after "$2" "$3" "$4"; exit ;;
esac

# ---------------------------------------------------------------------------------------------
# The demo itself.

attach=1
[[ ${DEMO_NO_ATTACH:-0} == 1 ]] && attach=0
board_args=(--lang ko)
while (($#)); do
  case $1 in
    --no-attach) attach=0 ;;
    --) shift; board_args=("$@"); break ;;
    -h|--help) sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "demo.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
  shift
done

missing=()
command -v tmux >/dev/null || missing+=(tmux)
command -v nc >/dev/null || missing+=(netcat-openbsd)
if ((${#missing[@]})); then
  echo "demo.sh needs ${missing[*]}: sudo apt-get install ${missing[*]}" >&2
  exit 1
fi

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$repo"
swift_flags=()
[[ -n ${DEMO_SCRATCH_PATH:-} ]] && swift_flags+=(--scratch-path "$DEMO_SCRATCH_PATH")
if [[ ${DEMO_SKIP_BUILD:-0} != 1 ]]; then
  echo "Building juice-server and juice-board..."
  swift build "${swift_flags[@]}" --product juice-server
  swift build "${swift_flags[@]}" --product juice-board
fi
bin=$(swift build "${swift_flags[@]}" --show-bin-path)
for tool in juice-server juice-board; do
  [[ -x $bin/$tool ]] || { echo "demo.sh: $bin/$tool is missing (build failed?)" >&2; exit 1; }
done

workdir=$(mktemp -d "${TMPDIR:-/tmp}/juice-demo.XXXXXX")
session="juice-demo-$$"
server_pid=""

cleanup() {
  tmux kill-session -t "$session" 2>/dev/null || true
  if [[ -n $server_pid ]] && kill -0 "$server_pid" 2>/dev/null; then
    kill -TERM "$server_pid" 2>/dev/null || true
    wait "$server_pid" 2>/dev/null || true
  fi
  rm -rf "$workdir"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# A fresh store on a free port (--port 0): the server prints the one it got.
"$bin/juice-server" --data "$workdir/data" --host "$HOST" --port 0 </dev/null >"$workdir/server.log" 2>&1 &
server_pid=$!
port=""
for _ in $(seq 1 100); do
  port=$(sed -n 's/.*listening on [0-9.]*:\([0-9]*\).*/\1/p' "$workdir/server.log" | head -n 1)
  [[ -n $port ]] && break
  kill -0 "$server_pid" 2>/dev/null || break
  sleep 0.1
done
if [[ -z $port ]]; then
  echo "demo.sh: juice-server did not start:" >&2
  cat "$workdir/server.log" >&2
  exit 1
fi
echo "juice-server on $HOST:$port, data in $workdir/data"

self=$(realpath "${BASH_SOURCE[0]}")
quoted_board_args=$(printf ' %q' "${board_args[@]}")
tmux new-session -d -s "$session" -x 160 -y 45 -n juice \
  "$(printf '%q' "$bin/juice-board") --host $HOST --port $port$quoted_board_args"
tmux split-window -h -t "$session:juice" -l 64 "bash $(printf '%q' "$self") --cashier 1 $port"
tmux split-window -v -t "$session:juice.1" "bash $(printf '%q' "$self") --cashier 2 $port"
tmux split-window -v -t "$session:juice.2" "bash $(printf '%q' "$self") --rush $port"
tmux select-pane -t "$session:juice.1"
# A hint typed into cashier 1, not sent: Enter is the audience's to press.
first_juice=$(printf 'MENU\r\nQUIT\r\n' | nc -q 2 "$HOST" "$port" 2>/dev/null |
  sed -n 's/^OK MENU \([^=]*\)=.*/\1/p' | head -n 1 || true)
sleep 0.3
[[ -n $first_juice ]] && tmux send-keys -t "$session:juice.1" "ORDER $first_juice 2"

if ((attach)); then
  echo "Attaching to tmux session $session. Ctrl-b d ends the demo (server stopped, data removed)."
  TMUX='' tmux attach -t "$session" || true
  exit 0
fi

# Detached: hand the cleanup to a watcher that waits for the session to end.
trap - EXIT INT TERM
nohup bash "$self" --cleanup-after "$session" "$server_pid" "$workdir" </dev/null >/dev/null 2>&1 &
disown
echo "session: $session"
echo "watch: tmux attach -t $session    stop: tmux kill-session -t $session"

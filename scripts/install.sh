#!/usr/bin/env bash
# Installs juice-server as a systemd service on a Debian box (README, "Running it in a shop"):
# a release build of juice-server, juice-till and juice-board in /usr/local/bin, the unit
# deploy/juice-server.service in /etc/systemd/system, and the manager token, made once, as the
# service's credential /etc/juice-server/manager-token (root only, mode 0600). Then:
#   sudo systemctl enable --now juice-server
# And the nightly backup (README, "Backups"): deploy/juice-backup.sh as /usr/local/bin/juice-backup,
# juice-backup.service and .timer, and /var/backups/juice-server (root only). Then:
#   sudo systemctl enable --now juice-backup.timer
#
# usage: scripts/install.sh [--uninstall] [--bin-dir DIR] [--root DIR]
#   (run it as yourself: it builds as you, then asks sudo for the steps that need root)
#   --uninstall     stop and disable the service and the timer, remove the binaries and the
#                   units; the data (/var/lib/juice-server), the token (/etc/juice-server) and
#                   the backups (/var/backups/juice-server) are kept
#   --bin-dir DIR   install the binaries already built in DIR instead of building
#   --root DIR      install under DIR instead of / and leave systemctl alone (packaging, tests)
#
# Running it again is safe: binaries and unit are replaced (a running service is restarted onto
# them), an existing token is kept as it is (its mode set back to 0600 if it drifted).
set -euo pipefail

here="$(cd "$(dirname "$0")/.." && pwd)"
binaries=(juice-server juice-till juice-board)
uninstall=0
bin_dir=""
root=""

usage() { sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//'; }

while [ $# -gt 0 ]; do
  case "$1" in
    --uninstall) uninstall=1 ;;
    --bin-dir) [ $# -ge 2 ] || { echo "install.sh: --bin-dir needs a directory" >&2; exit 2; }; bin_dir="$2"; shift ;;
    --root) [ $# -ge 2 ] || { echo "install.sh: --root needs a directory" >&2; exit 2; }; root="$2"; shift ;;
    -h|--help) usage; exit 0 ;;
    *) echo "install.sh: unknown argument '$1' (--help for usage)" >&2; exit 2 ;;
  esac
  shift
done

# Where everything goes (under --root when staging).
prefix="$root/usr/local"
unit_dir="$root/etc/systemd/system"
token_dir="$root/etc/juice-server"
token="$token_dir/manager-token"
doc_dir="$prefix/share/doc/juice-server"
backup_dir="$root/var/backups/juice-server"
units=(juice-server.service juice-backup.service juice-backup.timer)

# systemctl only on a real install on a box that runs systemd.
systemd_running() { [ -z "$root" ] && [ -d /run/systemd/system ] && command -v systemctl >/dev/null 2>&1; }

# Building as root would leave root-owned files in .build: build as the user, install as root.
if [ "$uninstall" -eq 0 ] && [ -z "$bin_dir" ]; then
  echo "== building a release (swift build -c release)"
  (cd "$here" && swift build -c release)
  bin_dir="$(cd "$here" && swift build -c release --show-bin-path)"
fi
if [ -z "$root" ] && [ "$(id -u)" -ne 0 ]; then
  echo "== the rest needs root: sudo"
  args=()
  [ "$uninstall" -eq 1 ] && args+=(--uninstall)
  [ -n "$bin_dir" ] && args+=(--bin-dir "$bin_dir")
  exec sudo "$0" "${args[@]}"
fi

if [ "$uninstall" -eq 1 ]; then
  if systemd_running; then
    systemctl disable --now juice-backup.timer juice-server.service 2>/dev/null || true
  fi
  for unit in "${units[@]}"; do rm -f "$unit_dir/$unit"; done
  for name in "${binaries[@]}" juice-backup; do rm -f "$prefix/bin/$name"; done
  rm -rf "$doc_dir"
  if systemd_running; then systemctl daemon-reload; fi
  echo "juice-server uninstalled. Kept: the data (/var/lib/juice-server, with DynamicUser in"
  echo "/var/lib/private/juice-server), the token ($token) and the backups (/var/backups/juice-server)."
  echo "To remove them too:"
  echo "  sudo rm -rf /var/lib/private/juice-server /var/lib/juice-server /etc/juice-server /var/backups/juice-server"
  exit 0
fi

for name in "${binaries[@]}"; do
  [ -x "$bin_dir/$name" ] || { echo "install.sh: $bin_dir/$name is not built" >&2; exit 1; }
done

echo "== binaries in $prefix/bin"
install -d -m 0755 "$prefix/bin" "$doc_dir" "$unit_dir"
for name in "${binaries[@]}"; do install -m 0755 "$bin_dir/$name" "$prefix/bin/$name"; done
install -m 0755 "$here/deploy/juice-backup.sh" "$prefix/bin/juice-backup"
install -m 0644 "$here/README.md" "$here/PROTOCOL.md" "$doc_dir/"

echo "== units in $unit_dir: ${units[*]}"
for unit in "${units[@]}"; do install -m 0644 "$here/deploy/$unit" "$unit_dir/$unit"; done
# The backups: root only (they hold the keys and the tills' pairings).
install -d -m 0700 "$backup_dir"

# The token: made once, never printed into a log; reinstalling keeps it (tills and managers
# already know it). umask first, so it is never readable by others even for a moment.
if [ ! -s "$token" ]; then
  echo "== a new manager token in $token"
  (umask 077 && install -d -m 0700 "$token_dir" \
    && head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n' > "$token" && echo >> "$token")
else
  echo "== keeping the manager token in $token"
fi
chmod 0600 "$token"
chmod 0700 "$token_dir"

if systemd_running; then
  systemctl daemon-reload
  # An upgrade: a running service moves onto the new binary (a stopped one stays stopped).
  systemctl try-restart juice-server.service
fi
echo "installed. Start it now and at every boot:  sudo systemctl enable --now juice-server"
echo "A backup every night (README, \"Backups\"):   sudo systemctl enable --now juice-backup.timer"
echo "The manager token (for /dashboard and /stock):  sudo cat $token"

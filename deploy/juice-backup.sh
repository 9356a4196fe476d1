#!/usr/bin/env bash
# The nightly backup of a running juice-server (README, "Backups"), run by juice-backup.service
# from juice-backup.timer; by hand: sudo /usr/local/bin/juice-backup
#
# 1. asks the server for a backup (juice-server backup: GET /backup with the manager token),
#    which is verified before it is written, as juice-YYYY-MM-DD.backup in $JUICE_BACKUP_DIR;
# 2. verifies the written file again, as a restore would read it;
# 3. keeps the newest $JUICE_BACKUP_KEEP backups there and removes older ones (by count, not by
#    age: nights the server was down never cost the last good copies);
# 4. copies it off the box when $JUICE_BACKUP_COPY_TO is set: a mounted drive's folder
#    (/media/usb/juice), or user@host:folder over SSH (scp, with a key root may use: BatchMode).
#
# Settings (environment, or /etc/juice-server/backup.env for the service; all optional):
#   JUICE_BACKUP_DIR         where the backups are kept   (default /var/backups/juice-server)
#   JUICE_BACKUP_KEEP        how many to keep             (default 14)
#   JUICE_BACKUP_SERVER      the server's HTTP HOST:PORT  (default 127.0.0.1:7879)
#   JUICE_BACKUP_TOKEN_FILE  the manager token            (default /etc/juice-server/manager-token)
#   JUICE_BACKUP_COPY_TO     a folder, or user@host:folder (default: no copy); as for scp, a ':'
#                            before any '/' means SSH (/media/usb:1 is a folder); host: is
#                            the remote home
#   JUICE_SERVER_BIN         the juice-server program     (default: juice-server on PATH)
# Exit status: 0 all done; 1 no backup was made, or it did not verify, or the copy failed
# (the unit then shows failed: systemctl status juice-backup).
set -euo pipefail

dir="${JUICE_BACKUP_DIR:-/var/backups/juice-server}"
keep="${JUICE_BACKUP_KEEP:-14}"
server="${JUICE_BACKUP_SERVER:-127.0.0.1:7879}"
token_file="${JUICE_BACKUP_TOKEN_FILE:-/etc/juice-server/manager-token}"
copy_to="${JUICE_BACKUP_COPY_TO:-}"
bin="${JUICE_SERVER_BIN:-juice-server}"

bad_keep() { echo "juice-backup: JUICE_BACKUP_KEEP must be a whole number from 1 to 999999999, not '$keep'" >&2; exit 1; }
case "$keep" in
  ''|*[!0-9]*|??????????*) bad_keep ;;
esac
# In decimal: bash would read 010 as octal (8), and 08 not at all.
[ "$((10#$keep))" -ge 1 ] || bad_keep
keep=$((10#$keep))

# Backups hold the keys and the tills' pairings: readable by root only.
umask 077
mkdir -p "$dir"

# Named by the date the job runs (a second run the same day replaces that day's file, atomically).
file="$dir/juice-$(date +%F).backup"
token_args=()
[ -e "$token_file" ] && token_args=(--manager-token-file "$token_file")
"$bin" backup "$file" --server "$server" "${token_args[@]}"
"$bin" verify "$file" >/dev/null

# The newest $keep by name (the date sorts), the rest removed; never tonight's, even when it
# sorts first (a box whose clock is behind at boot names it by an old date). -H: the folder
# may be a symlink (to a bigger disk), whose files are what is pruned.
mapfile -t old < <(find -H "$dir" -maxdepth 1 -name 'juice-*.backup' ! -name "${file##*/}" -type f | sort -r | tail -n +"$keep")
if [ "${#old[@]}" -gt 0 ]; then
  rm -f -- "${old[@]}"
  echo "juice-backup: removed ${#old[@]} older backup(s), keeping the newest $keep in $dir"
fi

if [ -n "$copy_to" ]; then
  name="$(basename "$file")"
  # user@host:folder is SSH, as scp reads it: a ':' before any '/'. A folder whose name holds a
  # ':' (/media/usb:1) is a folder.
  host="${copy_to%%:*}"
  case "$copy_to" in
    *:*) [ -n "$host" ] && [ "${host#*/}" = "$host" ] || host="" ;;
    *) host="" ;;
  esac
  case "$host" in
    ?*)
      # Over SSH: to a temporary name, then renamed, so the far side never holds half a backup.
      # An empty folder (host:) or ~ is the remote home, as for scp; never the remote's /.
      remote="$host" folder="${copy_to#*:}"
      # shellcheck disable=SC2088 # a literal ~ in the setting, meaning the remote home
      case "$folder" in
        ''|'~'|'~/') folder=. ;;
        '~/'*) folder="${folder#\~/}" ;;
      esac
      scp -q -o BatchMode=yes "$file" "$remote:${folder%/}/$name.part"
      # shellcheck disable=SC2029 # the names are expanded here on purpose
      ssh -o BatchMode=yes "$remote" "mv -f -- '${folder%/}/$name.part' '${folder%/}/$name'"
      ;;
    *)
      [ -d "$copy_to" ] || { echo "juice-backup: $copy_to is not a folder (is the drive mounted?)" >&2; exit 1; }
      # A copy that fails (a full drive) leaves no part behind to fill it further.
      cp -- "$file" "$copy_to/$name.part" || { rm -f -- "$copy_to/$name.part"; echo "juice-backup: copying $name to $copy_to failed" >&2; exit 1; }
      sync -f "$copy_to/$name.part" 2>/dev/null || sync
      mv -f -- "$copy_to/$name.part" "$copy_to/$name"
      "$bin" verify "$copy_to/$name" >/dev/null
      ;;
  esac
  echo "juice-backup: copied $name to $copy_to"
fi

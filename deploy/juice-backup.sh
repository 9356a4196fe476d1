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
#    (/media/usb/juice), pruned to the newest $JUICE_BACKUP_KEEP as in 3, or user@host:folder
#    over SSH (scp, with a key root may use: BatchMode), not pruned there (see below).
#
# One run at a time: a run holds a lock (flock on $JUICE_BACKUP_DIR/juice-backup.lock) from
# start to end; a second (the timer while a manual run goes on) waits for it, up to
# $JUICE_BACKUP_LOCK_WAIT seconds, then gives up (exit 1) and makes no backup of its own.
#
# Settings (environment, or /etc/juice-server/backup.env for the service; all optional):
#   JUICE_BACKUP_DIR         where the backups are kept   (default /var/backups/juice-server)
#   JUICE_BACKUP_KEEP        how many to keep             (default 14)
#   JUICE_BACKUP_SERVER      the server's HTTP HOST:PORT  (default 127.0.0.1:7879)
#   JUICE_BACKUP_TOKEN_FILE  the manager token            (default /etc/juice-server/manager-token)
#   JUICE_BACKUP_COPY_TO     a folder, or user@host:folder (default: no copy); as for scp, a ':'
#                            before any '/' means SSH (/media/usb:1 is a folder); host: is
#                            the remote home
#   JUICE_BACKUP_LOCK_WAIT   seconds a run waits for another to end (default 600)
#   JUICE_SERVER_BIN         the juice-server program     (default: juice-server on PATH)
# Exit status: 0 all done; 1 no backup was made (another run held the lock too long), or it did
# not verify, or the copy failed (the unit then shows failed: systemctl status juice-backup).
set -euo pipefail

dir="${JUICE_BACKUP_DIR:-/var/backups/juice-server}"
keep="${JUICE_BACKUP_KEEP:-14}"
server="${JUICE_BACKUP_SERVER:-127.0.0.1:7879}"
token_file="${JUICE_BACKUP_TOKEN_FILE:-/etc/juice-server/manager-token}"
copy_to="${JUICE_BACKUP_COPY_TO:-}"
lock_wait="${JUICE_BACKUP_LOCK_WAIT:-600}"
bin="${JUICE_SERVER_BIN:-juice-server}"

bad_keep() { echo "juice-backup: JUICE_BACKUP_KEEP must be a whole number from 1 to 999999999, not '$keep'" >&2; exit 1; }
case "$keep" in
  ''|*[!0-9]*|??????????*) bad_keep ;;
esac
# In decimal: bash would read 010 as octal (8), and 08 not at all.
[ "$((10#$keep))" -ge 1 ] || bad_keep
keep=$((10#$keep))
case "$lock_wait" in
  ''|*[!0-9]*|??????*) echo "juice-backup: JUICE_BACKUP_LOCK_WAIT must be a whole number of seconds below 100000, not '$lock_wait'" >&2; exit 1 ;;
esac
lock_wait=$((10#$lock_wait))

# Backups hold the keys and the tills' pairings: readable by root only.
umask 077
mkdir -p "$dir"

# One run at a time. Two at once (the timer, and a manual run) would write the same night's
# file, prune the same folder, and copy to the same <name>.part on the drive or the far side,
# each undoing the other's. Held on fd 9 until this script ends, whatever ends it; a second run
# waits (bounded: the timer's run must not hang behind a stuck one until the next night) rather
# than refuse at once, because it was asked for a backup and the first run's may not be
# tonight's. scp and ssh are started with fd 9 closed: an ssh connection kept open by the user's
# ControlPersist setting must not hold the lock past this run.
lock="$dir/juice-backup.lock"
exec 9>>"$lock"
if ! flock -n 9; then
  echo "juice-backup: another juice-backup is running (it holds $lock); waiting up to $lock_wait s for it" >&2
  flock -w "$lock_wait" 9 || { echo "juice-backup: another juice-backup still held $lock after $lock_wait s; gave up, no backup made" >&2; exit 1; }
fi

# Named by the date the job runs (a second run the same day replaces that day's file, atomically).
file="$dir/juice-$(date +%F).backup"
token_args=()
[ -e "$token_file" ] && token_args=(--manager-token-file "$token_file")
"$bin" backup "$file" --server "$server" "${token_args[@]}"
"$bin" verify "$file" >/dev/null

name="$(basename "$file")"

# In folder $1, the newest $keep backups by name (the date sorts), the older ones removed. Only
# plain files named juice-*.backup: never a <name>.part, a folder, or anything else kept there.
# Never tonight's, even when it sorts first (a box whose clock is behind at boot names it by an
# old date). -H: the folder may be a symlink (to a bigger disk), whose files are what is pruned.
# NUL-separated: a name is never split into two.
prune() {
  local old
  mapfile -d '' -t old < <(find -H "$1" -maxdepth 1 -name 'juice-*.backup' ! -name "$name" -type f -print0 | sort -rz | tail -zn +"$keep")
  if [ "${#old[@]}" -gt 0 ]; then
    rm -f -- "${old[@]}"
    echo "juice-backup: removed ${#old[@]} older backup(s), keeping the newest $keep in $1"
  fi
}
prune "$dir"

if [ -n "$copy_to" ]; then
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
      # Not pruned there: that would mean listing and removing files on a machine whose shell,
      # tools and other files this script does not know, with names passed through its shell.
      # The far side keeps every night's; prune it there (README, "Backups").
      part="${folder%/}/$name.part"
      # A copy cut off halfway (a dropped link, a full disk there) must not leave its part to
      # fill the far side: it is removed, as far as the host still answers (best effort: the
      # failure itself is what this run reports).
      # shellcheck disable=SC2029 # the names are expanded here on purpose
      if ! scp -q -o BatchMode=yes "$file" "$remote:$part" 9>&-; then
        ssh -o BatchMode=yes "$remote" "rm -f -- '$part'" 9>&- || true
        echo "juice-backup: copying $name to $copy_to failed (scp); its $name.part there is removed, if the host still answers" >&2
        exit 1
      fi
      # shellcheck disable=SC2029
      if ! ssh -o BatchMode=yes "$remote" "mv -f -- '$part' '${folder%/}/$name'" 9>&-; then
        ssh -o BatchMode=yes "$remote" "rm -f -- '$part'" 9>&- || true
        echo "juice-backup: copying $name to $copy_to failed (renaming $name.part there)" >&2
        exit 1
      fi
      echo "juice-backup: copied $name to $copy_to"
      ;;
    *)
      [ -d "$copy_to" ] || { echo "juice-backup: $copy_to is not a folder (is the drive mounted?)" >&2; exit 1; }
      # A copy that fails (a full drive) leaves no part behind to fill it further.
      # --remove-destination: a <name>.part already there is removed and the part made new
      # (O_EXCL), never written through. Whoever can write the folder (a drive another user
      # mounted) could otherwise leave a symlink there: plain cp followed it, writing the backup
      # (the keys, the tills' pairings) into a file of theirs, or over any file root may write.
      # -T: a folder named like tonight's backup is an error, never the place the part goes into.
      cp --remove-destination -- "$file" "$copy_to/$name.part" || { rm -f -- "$copy_to/$name.part"; echo "juice-backup: copying $name to $copy_to failed" >&2; exit 1; }
      sync -f "$copy_to/$name.part" 2>/dev/null || sync
      mv -fT -- "$copy_to/$name.part" "$copy_to/$name" || { rm -f -- "$copy_to/$name.part"; echo "juice-backup: copying $name to $copy_to failed (renaming $name.part there)" >&2; exit 1; }
      "$bin" verify "$copy_to/$name" >/dev/null
      echo "juice-backup: copied $name to $copy_to"
      # Pruned as the folder here, once the new copy is whole: a drive left to fill would stop
      # taking copies (and make this job fail) some night months later.
      prune "$copy_to"
      ;;
  esac
fi

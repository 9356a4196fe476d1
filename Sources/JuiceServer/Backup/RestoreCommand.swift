import Foundation
import JuiceCore
import JuiceDomain
import JuicePlatform
import JuiceStorage

/// `juice-server restore FILE --data DIR [--force]`: makes a data directory from a backup.
///
/// It verifies the whole backup before it touches anything. A directory that holds a store with
/// data (`StoreContents`: a journal record; a snapshot past a new store's, or one holding keys,
/// history or tills, even at seq 0) is refused unless `force`. The files it replaces are kept
/// aside, renamed `<name>.before-restore-<time>`, never overwritten. The snapshot, with the
/// backup's menu and calendar, is written as `Snapshot.write` does (temp file, fsync, rename,
/// directory fsync), and an empty journal: what a new store has. The new files are
/// written whole before any old one moves, and a failure after that puts the old ones back: a
/// failed restore (a full disk) leaves the store the directory held, never none. No store id: the
/// restored store makes a new one at its first start, so clients take its whole state again.
public enum RestoreCommand {
    /// The data files a restore replaces (LOCK stays: it is held while restoring).
    static let replaced = [Storage.journalName, Storage.snapshotName, Storage.menuName, Storage.calendarName, StoreIdentity.fileName]

    public static func run(_ path: String, directory: String, force: Bool) -> Int32 {
        BackupSummary.run("restore", failureNote: "; nothing was restored") {
            let contents = try VerifyCommand.load(path)
            try restore(contents, into: directory, force: force)
            return .init(heading: "restored \(path) into \(directory):", contents: contents,
                         after: ["Changes made after it was taken are not in it. Start the server on it: juice-server --data \(directory) (with the shop's usual flags)"])
        }
    }

    /// Whether `path` names anything, a symlink as itself (lstat): `fileExists` follows one, so a
    /// dangling `journal` link was neither set aside nor replaced, and the new journal was
    /// created where it pointed, outside the directory.
    static func entryExists(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0
    }

    struct RestoreRefusal: Error, CustomStringConvertible { let description: String }

    static func restore(_ contents: BackupFile.Contents, into directory: String, force: Bool) throws {
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        } catch {
            throw StorageError.cannotCreateDirectory(directory, reason: error.localizedDescription)
        }
        let lock = Platform.open(directory + "/LOCK", O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard lock >= 0 else { throw StorageError.failed(.openLock, path: directory + "/LOCK", errno: errno) }
        defer { Platform.close(lock) }
        guard flock(lock, LOCK_EX | LOCK_NB) == 0 else { throw StorageError.inUse(directory: directory) }
        if let held = StoreContents.describe(directory: directory), !force {
            throw RestoreRefusal(description: "\(directory) already holds a store with data (\(held)); nothing was changed. Restore into an empty directory, or add --force to keep its files aside (renamed <name>.before-restore-<time>) and restore over it")
        }
        // Everything new is whole and durable before any old file moves: the snapshot, menu.json
        // and calendar, each as a temp file beside its name. A full disk or a failed write stops
        // here, with the directory as it was.
        let staged = [(Storage.snapshotName, contents.snapshot), (Storage.menuName, contents.menuJSON),
                      (Storage.calendarName, Array(Storage.calendarText(contents.calendar).utf8))]
        var temps: [(temp: String, path: String)] = []
        // A temp file still here when this ends (a refusal, a failure) is removed.
        defer { for (temp, _) in temps { unlink(temp) } }
        for (name, bytes) in staged {
            let path = directory + "/" + name
            try AtomicFile.stage(bytes, at: path + ".restore.tmp")
            temps.append((path + ".restore.tmp", path))
        }
        // A suffix no file has yet: two forced restores within a second must not replace the
        // files the first one set aside (rename(2) replaces a target silently).
        let stamp = ".before-restore-" + UTCTime.text(WallClock.unixSeconds()).filter { $0 != ":" && $0 != "-" }
        var suffix = stamp, n = 1
        while replaced.contains(where: { entryExists(directory + "/" + $0 + suffix) }) {
            n += 1
            suffix = stamp + "-\(n)"
        }
        var keptAside: [String] = []
        var placed: [String] = []
        do {
            for name in replaced where entryExists(directory + "/" + name) {
                guard rename(directory + "/" + name, directory + "/" + name + suffix) == 0 else {
                    throw StorageError.failed(.rename, path: directory + "/" + name, errno: errno)
                }
                keptAside.append(name)
            }
            try AtomicFile.syncDirectory(directory)
            for (temp, path) in temps {
                guard rename(temp, path) == 0 else { throw StorageError.failed(.rename, path: temp, errno: errno) }
                placed.append(path)
            }
            temps = []
            placed.append(directory + "/" + Storage.journalName)
            _ = try JournalFile(path: directory + "/" + Storage.journalName, directory: directory, validLength: 0)
            try AtomicFile.syncDirectory(directory)
        } catch {
            // Undone: the new files out, the old ones back under their names, so that a server
            // started on the directory finds the store it held, never an empty new one.
            for path in placed { unlink(path) }
            for name in keptAside { rename(directory + "/" + name + suffix, directory + "/" + name) }
            try? AtomicFile.syncDirectory(directory)
            throw error
        }
        if !keptAside.isEmpty {
            print("kept the old files aside in \(directory): \(keptAside.map { $0 + suffix }.joined(separator: ", "))")
        }
    }
}

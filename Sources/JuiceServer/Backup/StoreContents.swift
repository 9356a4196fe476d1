import Foundation
import JuiceDomain
import JuicePlatform
import JuiceStorage

/// Whether a data directory holds a store with data, judged from its files without opening it.
/// Data is anything a restore would replace that is not a new store's: a journal record; a
/// snapshot past a new store's (a seq, a journal position or counters), or one that holds keys,
/// history, tills, takings or sales, which move no seq (a store of history only is at seq 0);
/// and any file that cannot be read as one, or cannot be read at all (`read`), which nobody has
/// looked at. A new store's files (its first start made them: the new box's, before a restore)
/// are not data: `restore` sets them aside without `--force`, as it does every file it replaces.
enum StoreContents {
    /// What the directory holds ("a snapshot at seq 12 with 3 keys, 3 journal records"), or nil
    /// for no data.
    static func describe(directory: String) -> String? {
        var found: [String] = []
        switch read(directory + "/" + Storage.snapshotName) {
        case .absent: break
        case .unreadable(let why): found.append("a snapshot that cannot be read: \(why)")
        case .bytes(let bytes): found += snapshot(RecordReader.read(bytes))
        }
        switch read(directory + "/" + Storage.journalName) {
        case .absent: break
        case .unreadable(let why): found.append("a journal that cannot be read: \(why)")
        case .bytes(let bytes):
            let read = RecordReader.read(bytes)
            if !read.records.isEmpty { found.append("\(read.records.count) journal records") }
            else if read.problem != nil { found.append("a journal that does not read as one") }
        }
        return found.isEmpty ? nil : found.joined(separator: ", ")
    }

    /// A data file: absent (no entry at all), or its bytes, or why it cannot be read. Something
    /// there that is not a readable plain file (no permission, a directory, a FIFO, a symlink to
    /// a disk not mounted) is not "absent": nobody has looked at it, so it counts as data. Judged
    /// absent, a store this user cannot read was set aside without --force.
    enum FileRead { case absent, bytes([UInt8]), unreadable(String) }

    static func read(_ path: String) -> FileRead {
        var info = stat()
        guard lstat(path, &info) == 0 else { return errno == ENOENT ? .absent : .unreadable(Platform.describe(errno)) }
        // O_NONBLOCK: a FIFO is refused below, never waited on (a restore runs with SIGINT blocked).
        let fd = Platform.open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { return .unreadable(Platform.describe(errno)) }
        defer { Platform.close(fd) }
        guard fstat(fd, &info) == 0 else { return .unreadable(Platform.describe(errno)) }
        guard (info.st_mode & S_IFMT) == S_IFREG else {
            return .unreadable((info.st_mode & S_IFMT) == S_IFDIR ? "a directory" : "not a plain file")
        }
        do { return .bytes(try VerifyCommand.readAll(fd, path: path, upTo: Int(info.st_size))) } catch {
            return .unreadable("\(error)")
        }
    }

    /// What a snapshot holds beyond a new store's: nothing, or one phrase.
    private static func snapshot(_ read: RecordReader.Result) -> [String] {
        guard read.problem == nil, case .header(let lsn, let seq, let served, let refused)? = read.records.first?.record else {
            return ["a snapshot that does not read as one"]
        }
        // What it holds, by kind: how many, and the kind's name for one and for more.
        var counts: [String: (count: Int, one: String)] = [:]
        func count(_ many: String, _ one: String) { counts[many, default: (0, one)].count += 1 }
        var changed = lsn > 0 || seq > 0 || served > 0 || refused > 0
        for entry in read.records.dropFirst() {
            switch entry.record {
            case .fruit, .end: break
            case .sold(_, let n), .lost(_, let n), .short(_, let n): changed = changed || n > 0
            case .key, .rememberedKey, .scopedKey: count("keys", "key")
            case .hour: count("hours of history", "hour of history")
            case .sale: count("sales", "sale")
            case .money: count("takings", "takings")
            case .tillPaired: count("tills", "till")
            case .tillDay: count("till days", "till day")
            // A revocation belongs to a till counted above; anything else is no new store's.
            case .tillRevoked: break
            default: count("other records", "other record")
            }
        }
        guard changed || !counts.isEmpty else { return [] }
        let held = counts.sorted { $0.key < $1.key }.map { many, kind in
            many == "takings" ? many : "\(kind.count) " + (kind.count == 1 ? kind.one : many)
        }
        return ["a snapshot at seq \(seq)" + (held.isEmpty ? "" : " with " + held.joined(separator: ", "))]
    }
}

import Foundation

/// Order keys that stay unique across restarts of the till: `<till id>:<counter>`. The counter
/// is written (to a temporary file, synced, renamed over the old one) before the key it makes
/// is used, so a till that crashes right after an order never hands out that key again.
/// A key whose order is in doubt is simply used again by the retry: that is its point.
///
/// The counter is one till's alone: a till holds an exclusive `flock` on `<id>.lock` for its
/// whole life, and a second till with the same id (same state directory) refuses to start
/// (`InUse`). Two tills that both read the counter once would hand out the same keys, and the
/// server would answer the second till's sale with the first one's reply (`dup`): a sale lost
/// while the till says it was made. Refusing, rather than picking a fresh id, keeps an id
/// meaning one till (the one a shop configured), and leaves no stray counter files behind.
/// The lock is on its own file because the counter file is replaced by rename on every key.
public final class TillKeys {
    public let tillID: String
    private let counterPath: String
    private var counter: UInt64
    private let lockFD: Int32

    /// Another running till holds this id's counter.
    public struct InUse: Error, CustomStringConvertible {
        public let tillID: String
        public let lockPath: String
        public var description: String {
            "another juice-till is running with till id \(tillID) (it holds \(lockPath)); "
                + "two tills with one id would reuse order keys and lose sales: give this one its own --till-id"
        }
    }

    /// The state directory: $XDG_STATE_HOME/juice-till, else ~/.local/state/juice-till.
    public static func directory(environment: [String: String]) -> String {
        if let state = environment["XDG_STATE_HOME"], state.hasPrefix("/") { return state + "/juice-till" }
        return (environment["HOME"] ?? NSHomeDirectory()) + "/.local/state/juice-till"
    }

    public static func isValidID(_ id: String) -> Bool {
        !id.isEmpty && id.utf8.count <= 40 && id.unicodeScalars.allSatisfy {
            $0.isASCII && (CharacterSet.alphanumerics.contains($0) || "._-".unicodeScalars.contains($0))
        }
    }

    /// Opens (or starts) the counter of `tillID`, or of the till id kept in `directory`
    /// (made up and kept on first use).
    public init(directory: String, tillID: String?) throws {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        if let tillID {
            self.tillID = tillID
        } else {
            let idPath = directory + "/till-id"
            let kept = (try? String(contentsOfFile: idPath, encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines)
            if let kept, Self.isValidID(kept) {
                self.tillID = kept
            } else {
                let made = "till-" + String(UUID().uuidString.prefix(8)).lowercased()
                try Self.store(made + "\n", to: idPath)
                self.tillID = made
            }
        }
        counterPath = directory + "/\(self.tillID).counter"
        let lockPath = directory + "/\(self.tillID).lock"
        lockFD = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard lockFD >= 0 else { throw CocoaError(.fileWriteNoPermission, userInfo: [NSFilePathErrorKey: lockPath]) }
        guard flock(lockFD, LOCK_EX | LOCK_NB) == 0 else {
            let busy = errno == EWOULDBLOCK
            close(lockFD)
            if busy { throw InUse(tillID: self.tillID, lockPath: lockPath) }
            throw CocoaError(.fileLocking, userInfo: [NSFilePathErrorKey: lockPath])
        }
        // Read only now, under the lock: the last till with this id has finished writing it.
        let text = (try? String(contentsOfFile: counterPath, encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines)
        counter = text.flatMap { UInt64($0) } ?? 0
    }

    deinit { close(lockFD) } // releases the lock (so does the process's exit)

    /// The next key, kept on disk before it is returned.
    public func next() throws -> String {
        counter += 1
        try Self.store("\(counter)\n", to: counterPath)
        return "\(tillID):\(counter)"
    }

    private static func store(_ text: String, to path: String) throws {
        let temporary = path + ".tmp"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw CocoaError(.fileWriteNoPermission, userInfo: [NSFilePathErrorKey: temporary]) }
        let bytes = Array(text.utf8)
        let written = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        let synced = fsync(fd)
        close(fd)
        guard written == bytes.count, synced == 0, rename(temporary, path) == 0 else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: path])
        }
    }
}

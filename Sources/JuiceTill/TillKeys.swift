import Foundation

/// Order keys that stay unique across restarts of the till: `<till id>:<counter>`. The counter
/// is written (to a temporary file, synced, renamed over the old one) before the key it makes
/// is used, so a till that crashes right after an order never hands out that key again.
/// A key whose order is in doubt is simply used again by the retry: that is its point.
public final class TillKeys {
    public let tillID: String
    private let counterPath: String
    private var counter: UInt64

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
        let text = (try? String(contentsOfFile: counterPath, encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines)
        counter = text.flatMap { UInt64($0) } ?? 0
    }

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

import Foundation

/// Where juice-till keeps the credential its till was paired with (`--pair CODE`): a file of the
/// user's, readable by the user alone (0600, in a 0700 directory), as ssh keeps a key. It is the
/// till's password: whoever reads it can sell as the till until the manager revokes it.
public enum TillCredentialFile {
    /// `$XDG_CONFIG_HOME/juice-till/credential`, or `~/.config/juice-till/credential`.
    public static func defaultPath(environment: [String: String]) -> String {
        if let config = environment["XDG_CONFIG_HOME"], config.hasPrefix("/") { return config + "/juice-till/credential" }
        return (environment["HOME"] ?? NSHomeDirectory()) + "/.config/juice-till/credential"
    }

    /// The credential in `path` (its first line, trimmed), or nil when there is no file.
    public static func read(_ path: String) throws -> String? {
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        let text = try String(contentsOfFile: path, encoding: .utf8)
        let line = text.split(whereSeparator: \.isNewline).first.map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
        guard !line.isEmpty else { throw Problem(description: "\(path) holds no credential: pair again with --pair CODE") }
        return line
    }

    /// Writes `credential` to `path` with mode 0600, replacing the file at once (a new file
    /// renamed over the old), so a crash leaves the old credential or the new, never half.
    public static func write(_ credential: String, to path: String) throws {
        let directory = (path as NSString).deletingLastPathComponent
        if !directory.isEmpty {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true,
                                                    attributes: [.posixPermissions: 0o700])
        }
        let temporary = path + ".new"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw Problem(description: "cannot write \(temporary): \(String(cString: strerror(errno)))") }
        let bytes = Array((credential + "\n").utf8)
        // O_CREAT's mode is masked by the umask and ignored for a file left by an earlier try.
        let written = fchmod(fd, 0o600) == 0 && bytes.withUnsafeBytes { Foundation.write(fd, $0.baseAddress, $0.count) } == bytes.count
            && fsync(fd) == 0
        close(fd)
        guard written, rename(temporary, path) == 0 else {
            unlink(temporary)
            throw Problem(description: "cannot write \(path): \(String(cString: strerror(errno)))")
        }
    }

    public struct Problem: Error, CustomStringConvertible {
        public let description: String
        public init(description: String) { self.description = description }
    }
}

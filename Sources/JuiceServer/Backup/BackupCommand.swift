import Foundation
import JuicePlatform
import JuiceStorage

/// `juice-server backup [FILE | DIR] [--server HOST:PORT] [--manager-token-file PATH]`: asks the
/// running server for a backup (`GET /backup`, as `curl` would), checks it whole before it keeps
/// it, and writes it where a crash leaves the old file or the new one, never half of one
/// (`AtomicFile`).
///
/// Run on the box by hand or by the nightly timer (deploy/juice-backup.service). A backup that
/// does not verify is not written at all: a file that exists is one `restore` accepts.
public enum BackupCommand {
    public struct Request: Sendable, Equatable {
        /// A file, a directory to put the server's name for it in, or nil: that name here.
        public var target: String?
        public var host = "127.0.0.1"
        public var port: UInt16 = 7879
        public var token: [UInt8]?
    }

    public static func run(_ request: Request) -> Int32 {
        BackupSummary.run("backup", failureNote: "; no file was written") {
            let download = BackupDownload(host: request.host, port: request.port, token: request.token)
            let answer = try download.fetch()
            let path = destination(request.target, suggested: answer.suggestedName)
            // Judged as `verify` judges it, before anything is written: a refusal names the
            // server's answer, not the file it never became.
            let contents = try BackupFile.read(answer.bytes, path: "answered by \(download.place)")
            // Owner only: a backup holds the keys and the tills' pairings. A temp file of its
            // own: the nightly timer and a manual run may write the same FILE at once.
            try AtomicFile.write(answer.bytes, to: path, directory: directory(of: path), mode: 0o600, uniqueTemp: true)
            return .init(heading: "backup written to \(path) (\(answer.bytes.count) bytes), whole:", contents: contents)
        }
    }

    /// Where the backup goes: `target` as a file, or inside it when it is a directory (or ends
    /// in "/"), under the server's name for it (`juice-<business day>.backup`).
    static func destination(_ target: String?, suggested: String?) -> String {
        let name = suggested ?? "juice.backup"
        guard let target else { return name }
        var isDirectory: ObjCBool = false
        if target.hasSuffix("/") || (FileManager.default.fileExists(atPath: target, isDirectory: &isDirectory) && isDirectory.boolValue) {
            return (target.hasSuffix("/") ? target : target + "/") + name
        }
        return target
    }

    static func directory(of path: String) -> String {
        let directory = (path as NSString).deletingLastPathComponent
        return directory.isEmpty ? "." : directory
    }
}

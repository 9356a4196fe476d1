import Foundation
import JuiceCore
import JuiceDomain
import JuicePlatform
import JuiceLog
import JuiceLoop

/// The manager token as the operator gives it: read from `--manager-token-file`, and checked at
/// start, so a token that no `AUTH` line could ever match stops the server with a message
/// instead of locking every manager out in silence.
package enum ManagerToken {
    /// The token in a token file: its first line, trimmed of spaces, tabs and a CR around it
    /// (PROTOCOL.md). Later lines are ignored: a note such as "# rotated 2026-11" may follow.
    /// Bytes, not a decoded String: a byte that is not UTF-8 must be refused, not replaced.
    package static func read(file path: String) -> Result<[UInt8], CommandLineOptions.UsageError> {
        guard let data = FileManager.default.contents(atPath: path) else {
            return .failure(error("cannot read --manager-token-file \(path)"))
        }
        let firstLine = data.prefix { $0 != 0x0A }
        let isBlank = { (b: UInt8) in b == 0x20 || b == 0x09 || b == 0x0D }  // space, tab, CR
        let token = Array(firstLine.drop(while: isBlank).reversed().drop(while: isBlank).reversed())
        guard !token.isEmpty else {
            return .failure(error("the first line of --manager-token-file \(path) is empty: it must hold the token"))
        }
        return .success(token)
    }

    /// The token from `--manager-token-file` when given, else from JUICE_MANAGER_TOKEN, else nil.
    package static func resolve(file: String?, environment: [String: String]) -> Result<[UInt8]?, CommandLineOptions.UsageError> {
        if let file { return read(file: file).map { $0 } }
        guard let token = environment["JUICE_MANAGER_TOKEN"], !token.isEmpty else { return .success(nil) }
        return .success(Array(token.utf8))
    }

    /// Why `AUTH <token>` could never carry this token, or nil if it can. The test is the real
    /// one: the line `AUTH <token>` must fit and must parse to exactly this token.
    package static func problem(_ token: [UInt8]) -> String? {
        if token.contains(where: { $0 <= 0x20 || $0 == 0x7F }) {
            return "the manager token may not contain spaces or control characters: AUTH takes it as one token"
        }
        let line = Array("AUTH ".utf8) + token
        if line.count > Limits.maxLineBytes {
            return "the manager token is \(token.count) bytes: an AUTH line holds at most \(Limits.maxLineBytes - 5)"
        }
        let parsed = line.withUnsafeBytes { CommandParser(menu: .standard).parse($0, isManager: false) }
        switch parsed {
        case .command(.auth(let carried)) where carried == token:
            return nil
        case .refused(let refusal, _):
            return "the manager token cannot be sent with AUTH (\(refusal.message))"
        default:
            return "the manager token cannot be sent with AUTH as it is"
        }
    }

    private static func error(_ message: String) -> CommandLineOptions.UsageError {
        CommandLineOptions.UsageError(description: "juice-server: \(message)\n\(CommandLineOptions.usage)")
    }
}

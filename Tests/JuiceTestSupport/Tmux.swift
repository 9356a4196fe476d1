import Foundation

/// A full-screen program driven in a detached tmux session: keys in (`send-keys`), the screen out
/// (`capture-pane`). Tests that need it are marked `.requires(.tmux)` (`OutsideTool`): they skip,
/// saying why, when tmux is not installed, and fail instead when JUICE_REQUIRE_TOOLS=1.
/// Each session has a tmux server of its own (`-L`), started by its first command and ended by
/// `kill()`, as on a fresh machine: nothing is shared with a developer's tmux or another test.
public final class TmuxSession: @unchecked Sendable {
    // @unchecked: used from one test at a time.
    public let name: String

    public static let path: String? = ["/usr/bin/tmux", "/usr/local/bin/tmux", "/opt/homebrew/bin/tmux"]
        .first { FileManager.default.isExecutableFile(atPath: $0) }

    /// Starts `command` (already shell-quoted words) in a new session of `columns` x `rows`.
    public init(_ command: String, columns: Int = 100, rows: Int = 30) throws {
        guard let tmux = Self.path else { throw TestError("tmux is not installed") }
        name = "juice-test-\(UUID().uuidString.prefix(8))"
        let (status, output) = try Executables.run(tmux, ["-L", name, "-f", "/dev/null", "new-session", "-d", "-s", name,
                                                          "-x", String(columns), "-y", String(rows), command])
        guard status == 0 else { throw TestError("tmux new-session failed: \(output)") }
    }

    /// What the pane shows now, one string per row (no colours).
    public var screen: String {
        (try? Executables.run(Self.path!, ["-L", name, "capture-pane", "-p", "-t", name]).output) ?? ""
    }

    /// Types `keys` literally.
    public func type(_ keys: String) {
        _ = try? Executables.run(Self.path!, ["-L", name, "send-keys", "-t", name, "-l", keys])
    }

    public func kill() {
        _ = try? Executables.run(Self.path!, ["-L", name, "kill-server"])
    }

    deinit { kill() }
}

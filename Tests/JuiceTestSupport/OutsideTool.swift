import Foundation
import Glibc
import Testing

/// A tool from outside the toolchain that some tests check their output with (Prometheus's own
/// parser, shellcheck, tmux, node, a tmpfs mount, caddy, systemd-analyze). `swift test` must pass on a fresh machine, so a test
/// that needs one is skipped there, saying what is missing and how to install it:
///
///     @Test(.requires(.prometheusClient)) func parsedByPrometheus() throws { ... }
///
/// CI must never lose that coverage quietly: with `JUICE_REQUIRE_TOOLS=1` (set by `.ci/run`,
/// which installs the tools first) the test runs whether or not the tool is there, and its
/// first step, `try tool.require()`, fails it with the same words when it is not.
public struct OutsideTool: Sendable {
    /// What is missing, as a user would name it: "prometheus_client (Python)".
    public let name: String
    /// How to get it: "python3 -m pip install prometheus_client".
    public let install: String
    private let probe: @Sendable () -> Bool

    public init(name: String, install: String, probe: @escaping @Sendable () -> Bool) {
        self.name = name
        self.install = install
        self.probe = probe
    }

    /// Whether this machine has it (asked once per test that names it).
    public var isAvailable: Bool { probe() }

    /// Set by `.ci/run`: a missing tool is a failure, not a skip.
    public static var required: Bool { ProcessInfo.processInfo.environment["JUICE_REQUIRE_TOOLS"] == "1" }

    /// Whether a test that needs it runs: where it is, or wherever tools are required.
    public var testRuns: Bool { OutsideTool.required || isAvailable }

    /// The skip line `swift test` prints.
    public var skipReason: String { "\(name) is not installed (install: \(install)); skipped" }

    /// Throws (failing the test) when the tool is missing: the first line of a test that needs it.
    public func require() throws {
        guard isAvailable else {
            throw TestError("\(name) is not installed and JUICE_REQUIRE_TOOLS=1 makes a missing tool a failure (install: \(install))")
        }
    }

    // MARK: The tools

    /// An executable on PATH, by name.
    public static func onPath(_ command: String) -> String? {
        (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":")
            .map { "\($0)/\(command)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// Python's prometheus_client, whose parser is what a real scraper accepts.
    public static let prometheusClient = OutsideTool(
        name: "prometheus_client (Python)", install: "python3 -m pip install prometheus_client") {
        guard let python3 = onPath("python3") else { return false }
        return exitStatus(python3, ["-c", "import prometheus_client.parser"]) == 0
    }

    /// openapi-spec-validator (Python), the reference check that an OpenAPI document is valid.
    public static let openapiSpecValidator = OutsideTool(
        name: "openapi-spec-validator (Python)", install: "python3 -m pip install openapi-spec-validator") {
        guard let python3 = onPath("python3") else { return false }
        return exitStatus(python3, ["-c", "import openapi_spec_validator"]) == 0
    }

    public static let shellcheck = OutsideTool(name: "shellcheck", install: "apt-get install shellcheck") {
        onPath("shellcheck") != nil
    }

    /// tmux, found where `TmuxSession` runs it from.
    public static let tmux = OutsideTool(name: "tmux", install: "apt-get install tmux") { TmuxSession.path != nil }

    /// Node.js, whose `node --check` parses the pages' scripts: a syntax error in one would
    /// otherwise show only in a browser, as a page that does nothing.
    public static let node = OutsideTool(name: "node (Node.js)", install: "apt-get install nodejs") { onPath("node") != nil }

    /// Caddy, the HTTPS reverse proxy a shop puts in front of the server (deploy/Caddyfile),
    /// and curl to talk to it with its local CA.
    public static let caddy = OutsideTool(name: "caddy and curl", install: "apt-get install caddy curl") {
        onPath("caddy") != nil && onPath("curl") != nil
    }

    /// `systemd-analyze verify`, to check deploy/juice-server.service as systemd reads it. Some
    /// containers have the command but cannot run it: the probe verifies a unit known to be good.
    public static let systemdAnalyze = OutsideTool(name: "systemd-analyze (able to verify units here)", install: "apt-get install systemd") {
        systemdAnalyzeWorks
    }

    private static let systemdAnalyzeWorks: Bool = {
        guard let analyze = onPath("systemd-analyze") else { return false }
        let dir = temporaryDirectory("juice-unit-probe")
        defer { removeTemporary(dir) }
        let unit = dir + "/juice-probe.service"
        guard FileManager.default.createFile(atPath: unit, contents: Data("[Service]\nExecStart=/bin/true\n".utf8)) else { return false }
        return (try? Executables.run(analyze, ["verify", unit]))?.status == 0
    }()

    /// Mounting a small tmpfs, to fill a disk for real: needs root, mount(8), and the right to
    /// mount (root in an unprivileged container has none), so the probe mounts one once.
    public static let tmpfsMount = OutsideTool(name: "a tmpfs mount (root, /bin/mount, and the right to mount)",
                                               install: "run the tests as root, outside an unprivileged container") {
        mountWorks
    }

    private static let mountWorks: Bool = {
        guard getuid() == 0, FileManager.default.isExecutableFile(atPath: "/bin/mount") else { return false }
        let point = temporaryDirectory("juice-mount-probe")
        defer { removeTemporary(point) }
        guard exitStatus("/bin/mount", ["-t", "tmpfs", "-o", "size=1m", "tmpfs", point]) == 0 else { return false }
        _ = exitStatus("/bin/umount", [point])
        return true
    }()

    /// A command's exit status, its output discarded; -1 if it could not start.
    static func exitStatus(_ executable: String, _ arguments: [String]) -> Int32 {
        (try? Executables.run(executable, arguments).status) ?? -1
    }
}

extension Trait where Self == ConditionTrait {
    /// Runs the test where `tool` is installed (or `JUICE_REQUIRE_TOOLS=1`), else skips it
    /// naming the tool and its install command.
    public static func requires(_ tool: OutsideTool) -> Self {
        .enabled(if: tool.testRuns, Comment(rawValue: tool.skipReason))
    }
}

import Foundation
import Glibc

/// A real Caddy in front of a test's server, as a shop runs it (deploy/Caddyfile): HTTPS on
/// `https://localhost:<port>` with a certificate from Caddy's own local CA (`tls internal`), the
/// event stream unbuffered, `X-Forwarded-For` set to each client's address. Everything it keeps
/// (the CA, certificates, autosaved config) is in a temporary directory of its own; its admin
/// endpoint is off and it installs no CA anywhere. Stopped on deinit.
public final class CaddyProxy: @unchecked Sendable {
    // @unchecked: owned by one test at a time.
    public let directory: String
    public private(set) var port = 0
    private var child: ChildProcess?

    /// The local CA's root certificate: what a tablet (or curl, `--cacert`) trusts.
    public var rootCA: String { directory + "/data/pki/authorities/local/root.crt" }
    public var url: String { "https://localhost:\(port)" }

    /// Starts Caddy proxying to 127.0.0.1:`upstreamPort`, and waits until a request through it
    /// reaches the server (`/healthz`).
    public init(upstreamPort: Int) throws {
        directory = temporaryDirectory("juice-caddy")
        guard let caddy = OutsideTool.onPath("caddy") else { throw TestError("caddy is not installed") }
        var failures: [String] = []
        // The port was free a moment ago; another process may take it first: then another one.
        for _ in 0..<3 {
            port = try Self.freePort()
            let config = directory + "/Caddyfile"
            try Self.caddyfile(port: port, upstream: upstreamPort, storage: directory + "/data")
                .write(toFile: config, atomically: true, encoding: .utf8)
            let started = try ChildProcess(caddy, ["run", "--config", config, "--adapter", "caddyfile"], directory: directory,
                                           environment: ["HOME": directory, "XDG_DATA_HOME": directory + "/xdg",
                                                         "XDG_CONFIG_HOME": directory + "/xdg"])
            let ready = eventually {
                guard started.isRunning else { return true }
                return FileManager.default.fileExists(atPath: rootCA) && (try? curl(["-o", "/dev/null", "-w", "%{http_code}", url + "/healthz"]))?.output == "200"
            }
            if ready && started.isRunning {
                child = started
                return
            }
            started.stop()
            failures.append(started.errors)
        }
        throw TestError("caddy did not start: \(failures.joined(separator: "\n---\n"))")
    }

    deinit {
        child?.stop()
        removeTemporary(directory)
    }

    /// The test's Caddyfile: deploy/Caddyfile's site on localhost and a port of its own. A stop
    /// waits at most a second for open requests (an event stream never ends by itself).
    static func caddyfile(port: Int, upstream: Int, storage: String) -> String {
        """
        {
        \tadmin off
        \tlocal_certs
        \tskip_install_trust
        \tauto_https disable_redirects
        \tgrace_period 1s
        \tstorage file_system \(storage)
        }
        https://localhost:\(port) {
        \ttls internal
        \treverse_proxy 127.0.0.1:\(upstream) {
        \t\tflush_interval -1
        \t}
        }
        """
    }

    /// curl with the local CA trusted, over IPv4 (so `--interface 127.0.0.2` can connect):
    /// its exit status and output (`-sS`: errors only on stderr, which is in the output too).
    public func curl(_ arguments: [String]) throws -> (status: Int32, output: String) {
        guard let curl = OutsideTool.onPath("curl") else { throw TestError("curl is not installed") }
        return try Executables.run(curl, curlOptions + arguments)
    }

    /// What every curl through this proxy needs (also for a streaming curl a test starts itself).
    public var curlOptions: [String] { ["-sS", "--ipv4", "--max-time", String(Int(testDeadline)), "--cacert", rootCA] }

    private static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        guard let port = bindLoopbackPortZero(fd) else { throw TestError("no free port: errno \(errno)") }
        return port
    }
}

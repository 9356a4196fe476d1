import Foundation
import Glibc
import JuiceTestSupport
import Testing

/// The built juice-bench binary against a real juice-server on port 0, with small numbers:
/// its output must make sense and agree with what the server itself counted. Never its speed.
@Suite(.serialized, .onOwnThreads) struct BenchRunTests {
    static var bench: String { Executables.path("juice-bench") }

    /// Runs juice-bench with `--json`; exit status, the JSON object, and everything it printed.
    func runJSON(_ arguments: [String]) throws -> (status: Int32, json: [String: Any], output: String) {
        let (status, output) = try Executables.run(Self.bench, arguments + ["--json", "--no-progress"])
        // The object is the one stdout line starting with "{" (stderr may add warnings).
        let line = output.split(separator: "\n").first { $0.hasPrefix("{") }.map(String.init) ?? ""
        let json = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
        return (status, try #require(json, "no JSON object in: \(output)"), output)
    }

    /// `orders`: five cashiers for two seconds. Every order it sent is one the server served:
    /// the bench's count, the server's STATS and the stock it sold all agree.
    @Test func ordersAgainstARealServer() throws {
        let server = try ExecutableServer(["--in-memory"])
        // Warm-up 0; a generous drain only bounds the wait for the last replies.
        let (status, o, output) = try runJSON(["orders", "--port", "\(server.port)", "--conns", "5", "--duration", "2",
                                               "--warmup", "0", "--drain", "\(testDeadline)"])
        #expect(status == 0, "\(output)")
        #expect(o["mode"] as? String == "orders" && o["target"] as? String == "127.0.0.1:\(server.port)")
        #expect(o["conns"] as? Int == 5 && o["pipeline"] as? Int == 1 && o["request"] as? String == "ORDER mango-kiwi")
        let replies = o["requests"] as? Int ?? -1, sent = o["requests_sent"] as? Int ?? -1
        #expect(replies > 0 && replies <= sent, "\(replies) replies of \(sent) sent")
        #expect(o["errors"] as? Int == 0 && o["errors_total"] as? Int == 0 && o["first_error"] is NSNull)
        #expect(o["lost_connections"] as? Int == 0 && o["interrupted"] as? Bool == false)
        let latency = try #require(o["latency_us"] as? [String: Double], "\(output)")
        let (p50, p99, max) = (latency["p50"] ?? -1, latency["p99"] ?? -1, latency["max"] ?? -1)
        #expect(p50 > 0 && p50 <= p99 && p99 <= max, "latency \(latency)")
        #expect(o["events"] as? Int == 0 && o["fanout_check"] is NSNull)

        // The server's side: it stocked up mango and kiwi at 1,000,000,000, then served `sent`
        // mango-kiwi (2 mango + 1 kiwi each), every one answered.
        let control = try server.client()
        let stats = values(try control.command("STATS"))
        #expect(stats["orders_served"] == sent, "the server served \(stats["orders_served"] ?? -1), the bench sent \(sent)")
        #expect(stats["orders_refused"] == 0)
        let stock = values(try control.command("STOCK"))
        #expect(stock["mango"] == 1_000_000_000 - 2 * sent && stock["kiwi"] == 1_000_000_000 - sent, "\(stock)")
    }

    /// `orders --http-port`: five tills posting over HTTP keep-alive for two seconds. As on the
    /// line port, every order the bench sent is one the server served and took from the stock;
    /// a connection the server ends (its cap on requests per connection) is reopened, not lost.
    @Test func httpOrdersAgainstARealServer() throws {
        let server = try ExecutableServer(["--in-memory"])
        let (status, o, output) = try runJSON(["orders", "--port", "\(server.port)", "--http-port", "\(server.httpPort)",
                                               "--conns", "5", "--duration", "2", "--warmup", "0", "--drain", "\(testDeadline)"])
        #expect(status == 0, "\(output)")
        #expect(o["mode"] as? String == "http-orders" && o["target"] as? String == "127.0.0.1:\(server.httpPort)")
        #expect(o["http_post"] as? String == "/orders" && o["request"] as? String == #"{"juice":"mango-kiwi"}"#)
        let replies = o["requests"] as? Int ?? -1, sent = o["requests_sent"] as? Int ?? -1
        #expect(replies > 0 && replies <= sent, "\(replies) replies of \(sent) sent")
        #expect(o["errors_total"] as? Int == 0 && o["lost_connections"] as? Int == 0, "\(output)")
        // The server answers at most 1000 requests per connection (HTTPProtocol
        // .maxRequestsPerConnection), then closes it: past that many orders on each of 5
        // connections, some were reopened, and none of that was a loss.
        let reconnects = o["reconnects"] as? Int ?? -1
        let cap = 1000
        #expect(sent <= 5 * cap ? reconnects >= 0 : reconnects > 0, "\(sent) sent, \(reconnects) reconnects")
        let control = try server.client()
        let stats = values(try control.command("STATS"))
        #expect(stats["orders_served"] == sent, "the server served \(stats["orders_served"] ?? -1), the bench sent \(sent)")
        let stock = values(try control.command("STOCK"))
        #expect(stock["mango"] == 1_000_000_000 - 2 * sent && stock["kiwi"] == 1_000_000_000 - sent, "\(stock)")
    }

    /// The server's CPU time and context switches over the window, read from /proc: found by
    /// the port without a flag (the very process the test started), or named by --server-pid.
    /// Plausible: more than nothing (it served every reply), and no more than every core of the
    /// machine for the whole window, plus a clock tick at each edge.
    @Test func ordersReportTheServersCPUAndSwitchesPerReply() throws {
        let server = try ExecutableServer(["--in-memory"])
        let cores = Double(sysconf(Int32(_SC_NPROCESSORS_ONLN)))
        for pidFlag in [[], ["--server-pid", "\(server.pid)"]] {
            let (status, o, output) = try runJSON(["orders", "--port", "\(server.port)", "--conns", "5", "--pipeline", "4",
                                                   "--duration", "2", "--warmup", "0.2", "--drain", "\(testDeadline)"] + pidFlag)
            #expect(status == 0, "\(output)")
            let s = try #require(o["server"] as? [String: Any], "\(output)")
            #expect(s["pid"] as? Int == Int(server.pid))
            #expect(s["found_by"] as? String == (pidFlag.isEmpty ? "listening on port \(server.port)" : "--server-pid"))
            let replies = Double(o["requests"] as? Int ?? 0), seconds = o["duration"] as? Double ?? 0
            let cpu = (s["user_s"] as? Double ?? -1) + (s["sys_s"] as? Double ?? -1)
            #expect(replies > 0 && cpu > 0 && cpu <= seconds * cores + 0.02, "\(cpu) s of CPU in \(seconds) s: \(output)")
            let perReply = s["cpu_us_per_reply"] as? Double ?? -1
            #expect(abs(perReply - cpu * 1e6 / replies) <= 0.001 + perReply * 0.001, "\(perReply) us per reply: \(output)")
            let switches = (s["voluntary_switches"] as? Int ?? -1) + (s["involuntary_switches"] as? Int ?? -1)
            #expect(switches >= 0 && abs((s["switches_per_reply"] as? Double ?? -1) - Double(switches) / replies) < 0.0001)
            // Every thread is listed under its name; the main thread keeps the program's.
            let threads = s["threads"] as? [[String: Any]] ?? []
            #expect(threads.contains { $0["name"] as? String == "juice-server" }, "\(output)")
            #expect(threads.reduce(0) { $0 + ($1["voluntary_switches"] as? Int ?? 0) + ($1["involuntary_switches"] as? Int ?? 0) } == switches)
        }
    }

    /// A --server-pid that names no process stops the run before it starts, rather than
    /// reporting figures of nothing.
    @Test func aServerPidThatIsNoProcessIsRefused() throws {
        let server = try ExecutableServer(["--in-memory"])
        let (status, output) = try Executables.run(Self.bench, ["orders", "--port", "\(server.port)", "--server-pid", "\(Int32.max)",
                                                               "--duration", "1", "--no-progress"])
        #expect(status == 1, "\(output)")
        #expect(output.contains("cannot read /proc/\(Int32.max)/stat"), "\(output)")
    }

    /// `fanout`: three displays, one cashier. The bench's own check must pass, and every
    /// display must have got an event for every order.
    @Test func fanoutAgainstARealServer() throws {
        let server = try ExecutableServer(["--in-memory"])
        let (status, o, output) = try runJSON(["fanout", "--port", "\(server.port)", "--watchers", "3", "--duration", "2",
                                               "--warmup", "0", "--drain", "\(testDeadline)"])
        #expect(status == 0, "\(output)")
        #expect(o["mode"] as? String == "fanout" && o["watchers"] as? Int == 3 && o["conns"] as? Int == 1)
        #expect(o["fanout_check"] as? String == "ok", "\(output)")
        let perWatcher = o["events_expected_per_watcher"] as? Int ?? -1
        let served = values(try server.client().command("STATS"))["orders_served"] ?? -2
        #expect(perWatcher > 0 && perWatcher == served, "\(perWatcher) events expected per display, \(served) orders served")
        #expect((o["events"] as? Int ?? -1) <= 3 * perWatcher)
        #expect(o["fanout_us"] is [String: Any])
        // The server's CPU is also given per event delivered.
        #expect((o["server"] as? [String: Any])?["cpu_us_per_event"] is Double, "\(output)")
    }

    /// `events`: three browser streams on the HTTP port, one cashier on the line port. The
    /// bench's check (every stream got every seq once, in order, after its full state) must
    /// pass, and each stream got one message per order the server served.
    @Test func eventsAgainstARealServer() throws {
        let server = try ExecutableServer(["--in-memory"])
        let (status, o, output) = try runJSON(["events", "--port", "\(server.port)", "--http-port", "\(server.httpPort)",
                                               "--streams", "3", "--duration", "2", "--warmup", "0",
                                               "--drain", "\(testDeadline)"])
        #expect(status == 0, "\(output)")
        #expect(o["mode"] as? String == "events" && o["watchers"] as? Int == 3 && o["conns"] as? Int == 1)
        #expect(o["watcher_target"] as? String == "127.0.0.1:\(server.httpPort)")
        #expect(o["fanout_check"] as? String == "ok", "\(output)")
        let perStream = o["events_expected_per_watcher"] as? Int ?? -1
        let served = values(try server.client().command("STATS"))["orders_served"] ?? -2
        #expect(perStream > 0 && perStream == served, "\(perStream) events expected per stream, \(served) orders served")
        #expect((o["events"] as? Int ?? -1) <= 3 * perStream)
        #expect(o["fanout_us"] is [String: Any] && o["lost_connections"] as? Int == 0)
    }

    /// `events` pointed at the line port instead of the HTTP port: the greeting is no HTTP
    /// answer, and the run says so instead of measuring nothing.
    @Test func eventsRefusesAServerThatDoesNotAnswerWithAStream() throws {
        let server = try ExecutableServer(["--in-memory"])
        let (status, output) = try Executables.run(Self.bench, ["events", "--port", "\(server.port)", "--http-port",
                                                               "\(server.port)", "--streams", "2", "--duration", "1",
                                                               "--no-progress"])
        #expect(status == 1, "\(output)")
        #expect(output.contains("refused an event stream: EVENT HELLO"), "\(output)")
    }

    /// `idle --streams`: every stream is proven open by its first message and held; the
    /// server's RSS is read before and after.
    @Test func idleStreamsAgainstARealServer() throws {
        let server = try ExecutableServer(["--in-memory"])
        let (status, o, output) = try runJSON(["idle", "--pid", "\(server.pid)", "--streams", "20",
                                               "--http-port", "\(server.httpPort)", "--duration", "0.2"])
        #expect(status == 0, "\(output)")
        #expect(o["mode"] as? String == "idle" && o["streams"] as? Bool == true && o["conns"] as? Int == 20)
        #expect(o["target"] as? String == "127.0.0.1:\(server.httpPort)" && o["lost_connections"] as? Int == 0)
        #expect((o["rss_before_kb"] as? Int ?? 0) > 0 && (o["rss_after_kb"] as? Int ?? 0) > 0)
    }

    /// The human table for the same kind of run: the header and the rows a reader looks for.
    @Test func theTableNamesTheTargetAndTheFigures() throws {
        let server = try ExecutableServer(["--in-memory"])
        let (status, output) = try Executables.run(Self.bench, ["orders", "--port", "\(server.port)", "--conns", "2",
                                                               "--duration", "0.5", "--warmup", "0", "--no-progress",
                                                               "--drain", "\(testDeadline)"])
        #expect(status == 0, "\(output)")
        #expect(output.hasPrefix("juice-bench orders -> 127.0.0.1:\(server.port)   2 conns x pipeline 1"), "\(output)")
        for row in ["request         ORDER mango-kiwi", "replies         ", "replies/s       ", "errors          0",
                    "latency (us)    p50 "] {
            #expect(output.contains(row), "no '\(row)' in: \(output)")
        }
    }

    @Test func badFlagsAndNoServerAreReportedWithTheirExitStatus() throws {
        let (usage, usageOutput) = try Executables.run(Self.bench, ["orders", "--conns", "0"])
        #expect(usage == 2)
        #expect(usageOutput.contains("juice-bench orders: --conns needs a whole number") && usageOutput.contains("usage: juice-bench orders"))
        // A port nobody listens on: bound to port 0 and held, never listened on, for the whole
        // run. A connect to it is refused, and no other process can take it meanwhile (one let
        // go before the run could be a server's of another test by the time the bench connects).
        let (closed, port) = try Self.portNobodyListensOn()
        defer { close(closed) }
        let (refused, refusedOutput) = try Executables.run(Self.bench, ["orders", "--port", "\(port)", "--duration", "1", "--no-progress"])
        #expect(refused == 1, "\(refusedOutput)")
        #expect(refusedOutput.contains("cannot connect"), "\(refusedOutput)")
    }

    @Test func theBuiltInSelfTestPasses() throws {
        let (status, output) = try Executables.run(Self.bench, ["self-test"])
        #expect(status == 0 && output.contains("self-test: all checks passed"), "\(output)")
    }

    /// A socket bound to a loopback port and not listening (the caller closes it), and its
    /// port: while it is open, connects to the port are refused and nothing else can bind it.
    static func portNobodyListensOn() throws -> (fd: Int32, port: Int) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard let port = bindLoopbackPortZero(fd) else {
            close(fd)
            throw TestError("cannot bind port 0: errno \(errno)")
        }
        return (fd, port)
    }
}

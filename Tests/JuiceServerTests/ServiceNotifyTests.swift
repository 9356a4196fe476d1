import Foundation
import Glibc
import JuiceCore
import JuiceDomain
import JuiceStorage
import JuicePlatform
import JuiceLog
import JuiceLoop
import JuiceServices
import JuiceLine
import JuiceHTTP
@testable import JuiceServer
import Testing

/// systemd's side of the server (`Type=notify`, `WatchdogSec=`): the test is systemd, owning the
/// datagram socket the executable is told of in `NOTIFY_SOCKET`.
@Suite(.onOwnThreads) struct ServiceNotifyTests {
    /// 400 ms: pings every 200 ms, so a few arrive quickly even on a busy machine.
    static let watchdog = ["WATCHDOG_USEC": "400000"]

    @Test func readyWithStatusThenWatchdogPingsThenStoppingOnSigterm() throws {
        let notify = try NotifySocket()
        let dir = temporaryDirectory("juice-notify-data")
        defer { removeTemporary(dir) }
        let server = try ExecutableServer(["--data", dir], environment: notify.environment.merging(Self.watchdog) { $1 })
        var seen: [[String]] = []
        let ready = notify.wait(for: { $0 == "READY=1" }, seen: &seen)
        #expect(ready != nil, "no READY=1; messages: \(seen); log: \(server.log())")
        let status = seen.last?.first { $0.hasPrefix("STATUS=") } ?? ""
        #expect(status == "STATUS=serving line 127.0.0.1:\(server.port), HTTP port \(server.httpPort); seq=0", "\(seen)")

        // Pings keep coming, and the status follows the store.
        let cashier = try server.client()
        #expect(cashier.ask("ORDER banana") == "OK ORDER banana 1 seq=1 banana=8 amount=4000")
        let moved = "STATUS=serving line 127.0.0.1:\(server.port), HTTP port \(server.httpPort); seq=1"
        var pings = 0, statusMoved = false
        _ = notify.wait(for: { line in   // giving up is checked just below
            if line == "WATCHDOG=1" { pings += 1 }
            if line == moved { statusMoved = true }
            return pings >= 3 && statusMoved
        }, seen: &seen)
        #expect(pings >= 3, "\(seen)")
        #expect(statusMoved, "\(seen)")

        server.signal(SIGTERM)
        let stopping = notify.wait(for: { $0 == "STOPPING=1" }, seen: &seen)
        #expect(stopping != nil, "no STOPPING=1 after SIGTERM: \(seen.suffix(3))")
        #expect(server.waitForExit() == 0)
    }

    /// The pings come from the loop itself: a loop that hangs stops them (and systemd then
    /// restarts the service), though every other thread of the process still runs.
    @Test func aBlockedLoopStopsThePings() throws {
        let notify = try NotifySocket()
        let trigger = temporaryDirectory("juice-block-loop") + "/now"
        defer { removeTemporary(URL(fileURLWithPath: trigger).deletingLastPathComponent().path) }
        let environment = notify.environment.merging(Self.watchdog) { $1 }.merging(["JUICE_TEST_BLOCK_LOOP": trigger]) { $1 }
        let server = try ExecutableServer(["--in-memory"], environment: environment)
        defer { server.kill9() }
        var seen: [[String]] = []
        var pings = 0
        let pinging = notify.wait(for: { line in
            if line == "WATCHDOG=1" { pings += 1 }
            return pings >= 2
        }, seen: &seen)
        try #require(pinging != nil, "no watchdog pings before the loop was blocked: \(seen)")

        #expect(FileManager.default.createFile(atPath: trigger, contents: nil))
        try #require(server.logShows("test hook: blocking the loop"), "\(server.log())")
        // Pings sent before the hook logged are queued already; after it, the loop sends nothing.
        _ = notify.drain()
        let late = notify.next(timeout: 2)
        #expect(late == nil, "a message came from a blocked loop: \(late ?? [])")
        // Still alive (systemd would SIGABRT it), just not serving: the loop is what hangs.
        #expect(server.isRunning)
        #expect(throws: (any Error).self) { try HTTPClient.exchange(port: server.httpPort, "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", timeout: 1) }
    }

    @Test func watchdogIntervalIsHalfOfWhatSystemdAsksForOurPidOnly() {
        #expect(ServiceNotifier.watchdogPingInterval(environment: [:]) == nil)
        #expect(ServiceNotifier.watchdogPingInterval(environment: ["WATCHDOG_USEC": "30000000"]) == 15_000_000)
        #expect(ServiceNotifier.watchdogPingInterval(environment: ["WATCHDOG_USEC": "30000000", "WATCHDOG_PID": "\(getpid())"]) == 15_000_000)
        #expect(ServiceNotifier.watchdogPingInterval(environment: ["WATCHDOG_USEC": "30000000", "WATCHDOG_PID": "1"]) == nil)
        #expect(ServiceNotifier.watchdogPingInterval(environment: ["WATCHDOG_USEC": "0"]) == nil)
        #expect(ServiceNotifier.watchdogPingInterval(environment: ["WATCHDOG_USEC": "soon"]) == nil)
        #expect(ServiceNotifier(environment: [:]) == nil)
        #expect(ServiceNotifier(environment: ["NOTIFY_SOCKET": "relative/path"]) == nil)
    }

    /// An abstract-namespace socket (`@name`), as some systemd versions hand out.
    @Test func sendsToAnAbstractSocketToo() throws {
        let name = "juice-notify-test-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = [0] + Array(name.utf8)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
        let length = socklen_t(MemoryLayout<sockaddr_un>.offset(of: \.sun_path)! + bytes.count)
        let bound = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) } }
        try #require(bound == 0)
        let notifier = try #require(ServiceNotifier(environment: ["NOTIFY_SOCKET": "@" + name]))
        #expect(notifier.send(["READY=1", "STATUS=hello"]))
        var buffer = [UInt8](repeating: 0, count: 256)
        let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
        #expect(n > 0 && String(decoding: buffer[..<n], as: UTF8.self) == "READY=1\nSTATUS=hello")
    }
}

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

/// Abuse must cost the abuser: AUTH guesses limited per address across connections, log lines
/// a client can repeat limited per kind, and manager tokens that AUTH could never carry refused
/// at start. The pure parts with a clock the test moves; the server in-process with its clock
/// injected, so no test waits out a minute.
@Suite(.onOwnThreads) struct AbuseLimitTests {
    static let second: UInt64 = 1_000_000_000
    static let t0: UInt64 = 5_000 * second

    // MARK: - AuthFailureLimiter

    @Test func tenFailuresWithinAMinuteRefuseTheAddressUntilTheMinuteIsOver() {
        var limiter = AuthFailureLimiter()
        let t0 = Self.t0
        for i in 1...9 {
            #expect(limiter.decide(address: "10.0.0.1", now: t0 + UInt64(i) * Self.second) == .check)
            #expect(limiter.recordFailure(address: "10.0.0.1", now: t0 + UInt64(i) * Self.second) == [])
        }
        // The window started at the first failure (t0 + 1 s): the tenth, at t0 + 10 s, leaves 51 s.
        #expect(limiter.recordFailure(address: "10.0.0.1", now: t0 + 10 * Self.second) == [.address(seconds: 51)])
        #expect(limiter.decide(address: "10.0.0.1", now: t0 + 10 * Self.second) == .refuse(retryAfterSeconds: 51))
        #expect(limiter.decide(address: "10.0.0.1", now: t0 + 60 * Self.second + Self.second / 2) == .refuse(retryAfterSeconds: 1))
        // Another address is not affected.
        #expect(limiter.decide(address: "10.0.0.2", now: t0 + 10 * Self.second) == .check)
        // Once the window has passed, tokens are checked again, and counting starts afresh.
        #expect(limiter.decide(address: "10.0.0.1", now: t0 + 61 * Self.second) == .check)
        #expect(limiter.recordFailure(address: "10.0.0.1", now: t0 + 61 * Self.second) == [])
        #expect(limiter.decide(address: "10.0.0.1", now: t0 + 62 * Self.second) == .check)
    }

    @Test func failuresSpreadOverMoreThanAMinuteNeverBlock() {
        var limiter = AuthFailureLimiter()
        for i in 0..<100 {
            let now = Self.t0 + UInt64(i) * 7 * Self.second  // one every 7 s: 9 per window at most
            #expect(limiter.decide(address: "10.0.0.1", now: now) == .check, "blocked at failure \(i)")
            limiter.recordFailure(address: "10.0.0.1", now: now)
        }
    }

    @Test func theTableNeverGrowsPastItsCapacityAndEvictsTheEarliest() {
        var policy = AuthFailureLimiter.Policy()
        policy.capacity = 8
        policy.maxFailures = 2
        policy.maxGlobalFailures = .max  // the table alone (AuthFailureCapTests: the cap)
        var limiter = AuthFailureLimiter(policy: policy)
        limiter.recordFailure(address: "first", now: Self.t0)
        limiter.recordFailure(address: "first", now: Self.t0)
        #expect(limiter.decide(address: "first", now: Self.t0) == .refuse(retryAfterSeconds: 60))
        for i in 0..<1000 {
            limiter.recordFailure(address: "10.1.\(i / 256).\(i % 256)", now: Self.t0 + UInt64(i))
            #expect(limiter.trackedAddresses <= 8)
        }
        #expect(limiter.decide(address: "first", now: Self.t0 + 1000) == .check)
        // The most recent ones are still counted.
        limiter.recordFailure(address: "10.1.3.231", now: Self.t0 + 2000)
        #expect(limiter.decide(address: "10.1.3.231", now: Self.t0 + 2000) != .check)
    }

    @Test func anExpiredAddressThatFailsAgainKeepsOnlyOneEntry() {
        var policy = AuthFailureLimiter.Policy()
        policy.capacity = 2
        var limiter = AuthFailureLimiter(policy: policy)
        for minute in 0..<10 {
            limiter.recordFailure(address: "a", now: Self.t0 + UInt64(minute) * 61 * Self.second)
            limiter.recordFailure(address: "b", now: Self.t0 + UInt64(minute) * 61 * Self.second)
            #expect(limiter.trackedAddresses == 2)
        }
    }

    @Test func thePeerAddressIsTheHostWithoutItsPort() {
        #expect(PeerAddress.host(of: "127.0.0.1:54321") == "127.0.0.1")
        #expect(PeerAddress.host(of: "[::1]:7878") == "::1")
        #expect(PeerAddress.host(of: "[fe80::1:2]:1") == "fe80::1:2")
    }

    // MARK: - AUTH limit in the server

    @Test func guessingAcrossReconnectsIsCutOffAndTheRightTokenWaitsOutTheWindow() async throws {
        let clock = Locked<UInt64>(Self.t0)
        let s = try await RunningServer.start { config in
            config.managerToken = Array("s3cret".utf8)
            config.authClock = { clock.get }
        }
        // 3 guesses per connection, 4 connections: the 11th and later are refused unchecked.
        var replies: [String] = []
        for _ in 0..<4 {
            let c = try s.client()
            for guess in 0..<3 { replies.append(try c.command("AUTH guess\(guess)")) }
            #expect(c.closedByServer())
        }
        #expect(replies[0..<10].allSatisfy { $0.hasPrefix("ERR AUTH_FAILED wrong token") }, "\(replies)")
        #expect(replies[10] == "ERR AUTH_FAILED too many failures, retry in 60 s", "\(replies)")
        #expect(replies[11] == "ERR AUTH_FAILED too many failures, retry in 60 s; closing", "\(replies)")
        // Even the right token is not checked now.
        let manager = try s.client()
        clock.update { $0 += 30 * Self.second }
        #expect(try manager.command("AUTH s3cret") == "ERR AUTH_FAILED too many failures, retry in 30 s")
        #expect(try manager.command("RESTOCK kiwi 1").hasPrefix("ERR FORBIDDEN "))
        // Reads stay open meanwhile (and a paired till's credential is no token: no AUTH limit touches it).
        #expect(try manager.command("STOCK banana") == "OK STOCK seq=0 banana=10")
        clock.update { $0 += 30 * Self.second }
        #expect(try manager.command("AUTH s3cret") == "OK AUTH")
        #expect(try manager.command("RESTOCK kiwi 1") == "OK RESTOCK seq=1 kiwi=11")
        await s.stop()
    }

    // MARK: - LogThrottle

    @Test func twentyLinesASecondPassThenTheRestAreCountedAndReportedOnce() {
        var throttle = LogThrottle()
        let t0 = Self.t0
        for i in 0..<20 { #expect(throttle.admit(now: t0 + UInt64(i)) == (true, nil)) }
        for i in 0..<500 { #expect(throttle.admit(now: t0 + 100 + UInt64(i)) == (false, nil)) }
        #expect(throttle.takeReport(now: t0 + Self.second - 1) == nil, "the window is not over yet")
        // The next line after the window passes and carries the count of the one before.
        #expect(throttle.admit(now: t0 + Self.second) == (true, 500))
        #expect(throttle.takeReport(now: t0 + 3 * Self.second) == nil, "reported once, and nothing since")
    }

    @Test func aReportIsTakenByAnyLaterLogCallOnceTheWindowIsOver() {
        var throttle = LogThrottle()
        for _ in 0..<23 { _ = throttle.admit(now: Self.t0) }
        #expect(throttle.takeReport(now: Self.t0 + Self.second) == 3)
        #expect(throttle.takeReport(now: Self.t0 + 2 * Self.second) == nil)
        #expect(throttle.admit(now: Self.t0 + 2 * Self.second) == (true, nil))
    }

    @Test func aStopLineTakesTheCountMidWindowAndTheLimitStillHolds() {
        var throttle = LogThrottle()
        for _ in 0..<25 { _ = throttle.admit(now: Self.t0) }
        #expect(throttle.takeReportNow() == 5)
        #expect(throttle.takeReportNow() == nil)
        #expect(throttle.admit(now: Self.t0 + 10) == (false, nil), "the window's 20 are used up")
    }

    // MARK: - Manager tokens

    @Test func aTokenAUTHCannotCarryIsRefusedAtStartAndEveryOtherIsAccepted() {
        func parse(_ token: String) -> Result<CommandLineOptions.Action, CommandLineOptions.UsageError> {
            CommandLineOptions.parse(["--in-memory"], environment: ["JUICE_MANAGER_TOKEN": token])
        }
        for bad in ["s3\u{85}cret", "\u{80}", "x\u{9F}", "a b", "a\tb", "a\u{7F}", "a\u{1B}[0m",
                    String(repeating: "k", count: Limits.maxLineBytes - 4)] {
            guard case .failure(let error) = parse(bad) else {
                Issue.record("accepted a token AUTH cannot carry: \(Array(bad.unicodeScalars.prefix(8)))")
                continue
            }
            #expect(error.description.contains("manager token"), "\(error)")
        }
        for good in ["s3cret", "비밀번호", "p@ss:w0rd/+=", "\u{A0}nbsp\u{A0}", String(repeating: "k", count: Limits.maxLineBytes - 5)] {
            guard case .success(.run(let config)) = parse(good) else {
                Issue.record("refused a token AUTH can carry: \(good.prefix(20))")
                continue
            }
            #expect(config.managerToken == Array(good.utf8))
        }
        // The check is the parser's own: what it accepts, it carries unchanged.
        #expect(ManagerToken.problem(Array("s3\u{85}cret".utf8))?.contains("U+0085") == true)
        #expect(ManagerToken.problem([0x73, 0xFF, 0x73]) != nil, "not UTF-8")
    }

    @Test func theTokenFileIsReadToItsFirstLineTrimmed() throws {
        let dir = temporaryDirectory("juice-token")
        defer { removeTemporary(dir) }
        func token(from contents: String) -> [UInt8]? {
            let file = dir + "/token"
            _ = FileManager.default.createFile(atPath: file, contents: Data(contents.utf8))
            guard case .success(.run(let config)) = CommandLineOptions.parse(["--in-memory", "--manager-token-file", file]) else {
                return nil
            }
            return config.managerToken
        }
        #expect(token(from: "s3cret\n# rotated\n") == Array("s3cret".utf8))
        #expect(token(from: "  s3cret \t\r\nnext\nlines\n") == Array("s3cret".utf8))
        #expect(token(from: "s3cret") == Array("s3cret".utf8))
        #expect(token(from: "s3cret\r\n") == Array("s3cret".utf8))
        #expect(token(from: "\ns3cret\n") == nil, "the first line is empty")
        #expect(token(from: "s3 cret\n") == nil)
    }

    @Test func logLevelFlag() {
        for level in LogLevel.allCases {
            guard case .success(.run(let config)) = CommandLineOptions.parse(["--in-memory", "--log-level", level.name]) else {
                Issue.record("--log-level \(level.name) refused")
                continue
            }
            #expect(config.logLevel == level)
        }
        guard case .failure(let error) = CommandLineOptions.parse(["--log-level", "verbose"]) else {
            Issue.record("--log-level verbose accepted")
            return
        }
        #expect(error.description.contains("error, warn, info, debug"))
    }
}

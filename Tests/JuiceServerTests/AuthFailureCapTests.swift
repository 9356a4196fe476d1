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

/// A pool of addresses must not guess the manager token faster than one address: an IPv6
/// client counts by its /64, and all addresses together get a cap on checked failures a minute,
/// under which a manager who signed in before is still checked. The pure parts with a clock the
/// test moves; the server in-process with its clock injected, guessing from several loopback
/// addresses (127.0.0.2, ...: other hosts, as the server sees them).
@Suite(.onOwnThreads) struct AuthFailureCapTests {
    static let second: UInt64 = 1_000_000_000
    static let t0: UInt64 = 5_000 * second

    // MARK: - The client address

    @Test func anIPv6ClientIsItsSlash64AndAMappedIPv4AddressIsTheIPv4Address() {
        #expect(PeerAddress.group(of: "10.0.0.7:5678") == "10.0.0.7")
        #expect(PeerAddress.group(of: "[2001:db8:1:2::a]:1") == "2001:db8:1:2::/64")
        #expect(PeerAddress.group(of: "[2001:db8:1:2:ffff:1:2:3]:2") == "2001:db8:1:2::/64")
        #expect(PeerAddress.group(of: "[2001:db8:1:3::a]:1") == "2001:db8:1:3::/64")
        #expect(PeerAddress.group(of: "[fe80::1:2]:1") == "fe80::/64")
        #expect(PeerAddress.group(of: "[::ffff:10.0.0.7]:9") == "10.0.0.7")
        #expect(PeerAddress.group(of: "[::1]:7878") == "::1")
    }

    @Test func addressesOfOneSlash64ShareOneAllowance() {
        let auth = ManagerAuth(token: Array("s3cret".utf8), policy: AuthFailureLimiter.Policy(), clock: { Self.t0 })
        // Ten guesses, each from another address of one /64 (one host's privacy addresses).
        for i in 1...10 {
            #expect(auth.verify(Array("guess".utf8), peer: "[2001:db8:1:2::\(String(i, radix: 16))]:4000") == .wrong)
        }
        #expect(auth.verify(Array("s3cret".utf8), peer: "[2001:db8:1:2:abcd::1]:4000") == .tooManyFailures(retryAfterSeconds: 60))
        #expect(auth.verify(Array("s3cret".utf8), peer: "[::ffff:10.9.9.9]:1") == .accepted, "another client")
        #expect(auth.verify(Array("s3cret".utf8), peer: "[2001:db8:1:3::1]:4000") == .accepted, "the next /64")
    }

    @Test func anIPv4MappedClientIsCountedAsItsIPv4Address() {
        var policy = AuthFailureLimiter.Policy()
        policy.maxFailures = 2
        let auth = ManagerAuth(token: Array("s3cret".utf8), policy: policy, clock: { Self.t0 })
        #expect(auth.verify(Array("a".utf8), peer: "10.0.0.7:1") == .wrong)
        #expect(auth.verify(Array("b".utf8), peer: "[::ffff:10.0.0.7]:2") == .wrong)
        #expect(auth.verify(Array("s3cret".utf8), peer: "10.0.0.7:3") == .tooManyFailures(retryAfterSeconds: 60))
    }

    // MARK: - The cap on all addresses

    @Test func aPoolOfAddressesGetsAtMostTheGlobalCapOfCheckedGuessesAWindow() {
        var limiter = AuthFailureLimiter()
        #expect(limiter.policy.maxGlobalFailures == 100)
        limiter.recordSuccess(address: "10.0.0.250")  // the manager, signed in earlier
        // 100 addresses, one guess each: every one is checked; the 100th starts the block.
        for i in 0..<100 {
            let now = Self.t0 + UInt64(i) * Self.second / 10
            #expect(limiter.decide(address: "10.1.0.\(i)", now: now) == .check, "guess \(i)")
            #expect(limiter.recordFailure(address: "10.1.0.\(i)", now: now) == (i == 99 ? [.everyone(seconds: 51)] : []))
        }
        // The window began at the first failure (t0): 50 s later, 10 s are left.
        let later = Self.t0 + 50 * Self.second
        #expect(limiter.decide(address: "10.2.0.1", now: later) == .refuse(retryAfterSeconds: 10), "a fresh address")
        #expect(limiter.decide(address: "10.1.0.5", now: later) == .refuse(retryAfterSeconds: 10))
        #expect(limiter.decide(address: "10.0.0.250", now: later) == .check, "a manager who signed in is still checked")
        // Its own limit still holds for it.
        for _ in 0..<10 { limiter.recordFailure(address: "10.0.0.250", now: later) }
        #expect(limiter.decide(address: "10.0.0.250", now: later) == .refuse(retryAfterSeconds: 60))
        // Once the window is over, everyone is checked again, and counting starts afresh.
        #expect(limiter.decide(address: "10.2.0.1", now: Self.t0 + 60 * Self.second) == .check)
        for i in 0..<99 { limiter.recordFailure(address: "10.3.0.\(i)", now: Self.t0 + 61 * Self.second) }
        #expect(limiter.decide(address: "10.2.0.1", now: Self.t0 + 61 * Self.second) == .check)
    }

    @Test func signedInAddressesAreBoundedAndForgetTheEarliest() {
        var set = SignedInAddresses(capacity: 3)
        for address in ["a", "b", "a", "c", "d"] { set.insert(address) }
        #expect(set.count == 3)
        #expect(!set.contains("a") && set.contains("b") && set.contains("c") && set.contains("d"))
    }

    // MARK: - In the server, over both protocols

    @Test func guessesFromManyAddressesHitTheCapAndOnlyASignedInManagerIsStillChecked() async throws {
        let clock = Locked<UInt64>(Self.t0)
        try await RunningServer.with({ config in
            config.managerToken = Array("s3cret".utf8)
            config.authClock = { clock.get }
            config.authFailurePolicy.maxFailures = 3
            config.authFailurePolicy.maxGlobalFailures = 6
        }) { s in
            let http = try #require(await s.server.httpPort)
            let manager = try LineClient(port: s.port, from: "127.0.0.9")
            #expect(try manager.command("AUTH s3cret") == "OK AUTH")
            // Two addresses, three wrong tokens each (each address's limit): six in all, the cap.
            for source in ["127.0.0.2", "127.0.0.3"] {
                let guesser = try LineClient(port: s.port, from: source)
                for guess in 0..<3 { _ = try guesser.command("AUTH guess\(guess)") }
                #expect(guesser.closedByServer())
            }
            // A third address, which never failed, is not checked now: not even the right token.
            let fresh = try LineClient(port: s.port, from: "127.0.0.4")
            clock.update { $0 += 20 * Self.second }
            #expect(try fresh.command("AUTH s3cret") == "ERR AUTH_FAILED too many failures, retry in 40 s")
            #expect(try fresh.command("RESTOCK kiwi 1").hasPrefix("ERR FORBIDDEN "))
            // Nor over HTTP, which shares the limit.
            let bearer = try Self.sales(http, from: "127.0.0.4", token: "s3cret")
            #expect(bearer.status == 401 && bearer.header("Retry-After") == "40", "\(bearer.status) \(bearer.text)")
            // The manager who signed in before is still checked, on a new connection and over HTTP.
            let again = try LineClient(port: s.port, from: "127.0.0.9")
            #expect(try again.command("AUTH s3cret") == "OK AUTH")
            #expect(try Self.sales(http, from: "127.0.0.9", token: "s3cret").status == 200)
            // The window is over: the fresh address is checked again.
            clock.update { $0 += 40 * Self.second }
            #expect(try fresh.command("AUTH s3cret") == "OK AUTH")
            #expect(try fresh.command("RESTOCK kiwi 1") == "OK RESTOCK seq=1 kiwi=11")
        }
    }

    /// `GET /sales` with a Bearer token, sent from `source`.
    static func sales(_ http: Int, from source: String, token: String) throws -> HTTPReply {
        let connection = try LineClient(port: http, readGreeting: false, from: source)
        defer { connection.close() }
        let request = "GET /sales HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(token)\r\nConnection: close\r\n\r\n"
        guard connection.write(request) else { throw TestError("sending the request failed") }
        return try HTTPClient.readReply(connection)
    }
}

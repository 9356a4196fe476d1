import Foundation
import Testing
import JuiceClient

/// What a manager call says when AUTH was refused, and that a lockout ends for a client with the
/// right token without a reconnect. The lockout window is shortened with the debug build's
/// JUICE_TEST_AUTH_WINDOW_SECONDS (AuthTestHook): a minute is too long to wait in a test.
@Suite(.serialized, .onOwnThreads) struct ClientAuthTests {
    /// A wrong token is `.authFailed` with the server's words, not `.forbidden` ("send AUTH
    /// first", which the client did). It is not sent again on the same connection.
    @Test(.timeLimit(.minutes(2)))
    func aWrongTokenIsAuthFailed() async throws {
        let server = try ExecutableServer(["--in-memory"], environment: ["JUICE_MANAGER_TOKEN": "s3cret"])
        let shop = client(server, token: "nope")
        defer { shop.close() }
        await #expect(throws: JuiceError.authFailed("wrong token")) { try await shop.restock("kiwi", 5) }
        await #expect(throws: JuiceError.authFailed("wrong token")) { try await shop.set("kiwi", 5) }
        // Orders need no manager token: paired as a till on the same connection, it sells.
        _ = try await shop.pair(code: pairingCode(server, token: "s3cret"))
        guard case .made = try await shop.order("kiwi") else { Issue.record("not made"); return }
        server.stop() // its exit flushes the log
        #expect(server.log().components(separatedBy: "AUTH refused for").count - 1 == 1, "AUTH was re-sent: \(server.log())")
    }

    /// A right-token client that connected while its address was locked out is refused with the
    /// lockout's words; once the server's retry-after has passed, its next restock sends AUTH
    /// again on the same connection and goes through.
    @Test(.timeLimit(.minutes(2)))
    func aRightTokenGetsThroughAfterTheLockoutWithoutReconnecting() async throws {
        let server = try ExecutableServer(["--in-memory"], environment: ["JUICE_MANAGER_TOKEN": "s3cret", "JUICE_TEST_AUTH_WINDOW_SECONDS": "3"])
        // Ten wrong tokens from this address lock AUTH (three a connection: the third closes it).
        for _ in 0..<5 {
            let guesser = try server.client()
            #expect(guesser.ask("AUTH wrong1").hasPrefix("ERR AUTH_FAILED"))
            #expect(guesser.ask("AUTH wrong2").hasPrefix("ERR AUTH_FAILED"))
            guesser.close()
        }
        let shop = client(server, token: "s3cret")
        defer { shop.close() }
        let log = StreamLog(shop.stock())
        #expect(await settles { log.lastSeq != nil })
        var wait = 0
        do {
            try await shop.restock("kiwi", 5)
            Issue.record("a restock went through during the lockout")
        } catch JuiceError.authFailed(let message) {
            #expect(message.hasPrefix("too many failures, retry in "), "\(message)")
            wait = try #require(Int(message.split(separator: " ")[5]))
        }
        #expect((1...3).contains(wait))
        // The server said when; a client that keeps asking meanwhile is told the same.
        await #expect(throws: JuiceError.self) { try await shop.restock("kiwi", 5) }
        try await Task.sleep(nanoseconds: UInt64(wait) * 1_000_000_000)
        let done = try await shop.restock("kiwi", 5)
        #expect(done.total == 15)
        #expect(!log.all.contains { if case .offline = $0 { true } else { false } }, "it reconnected: \(log.all)")
    }
}

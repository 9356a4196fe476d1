import Foundation
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
import JuiceTestSupport
import Testing

/// What an attacker found against paired tills (issue 31's own attack), each a test that failed
/// before its fix: one credential holding every slot, a till's keys growing memory without
/// bound, strangers voiding the pairing codes, crafted till records trapping or being taken,
/// a repeated credential header, and revoking a till closing the shop proxy's connection.
@Suite(.onOwnThreads) struct TillAttackTests {
    static let token = "att4ck-t0ken"
    static let hash = String(repeating: "ab", count: 32)

    @Test func oneTillHoldsAtMostEightConnections() throws {
        let server = try ExecutableServer(["--in-memory"], environment: ["JUICE_MANAGER_TOKEN": Self.token])
        let manager = try PairedTillTests.quiet(server)
        #expect(try manager.command("AUTH \(Self.token)") == "OK AUTH")
        let (first, credential) = try PairedTillTests.pair(server, manager: manager, name: "Greedy")
        var held = [first]
        for _ in 1..<TillPresence.maxConnectionsPerTill {
            let c = try PairedTillTests.quiet(server)
            #expect(try c.command("TILL \(credential)").hasPrefix("OK TILL till=1"))
            held.append(c)
        }
        let ninth = try PairedTillTests.quiet(server)
        #expect(try ninth.command("TILL \(credential)") == "ERR BUSY till 1 has 8 connections open; closing")
        #expect(ninth.waitClosed())
        let overHTTP = try HTTPClient.post(port: server.httpPort, "/orders", json: #"{"juice":"banana"}"#, headers: ["Juice-Till: \(credential)"])
        #expect(overHTTP.status == 503, "\(overHTTP.text)")
        // One closed, and there is room again.
        held.removeLast().close()
        #expect(eventually { (try? PairedTillTests.quiet(server).command("TILL \(credential)"))?.hasPrefix("OK TILL") == true })
        server.stop()
    }

    @Test func aTillsKeysKeepTheirMemoryBoundedAndARevokedTillsGo() {
        var ledger = StockLedger(menu: .standard, initialStock: 1_000_000, keyPolicy: KeyMemory.Policy(perTill: 50))
        let flooder = Writer.till(1).keyScope
        for i in 0..<50_000 { _ = ledger.order(OrderRequest(juice: 1, count: 1, key: "k\(i)"), in: flooder, at: 10) }
        #expect(ledger.keys.held(in: flooder) == 50)
        #expect(ledger.keys.ownSlots <= 2 * 1024 + 50, "\(ledger.keys.ownSlots) slots kept for 50 live keys")
        #expect(ledger.keys["k49999", in: flooder] != nil)
        ledger.forgetKeys(of: .till(1))
        #expect(ledger.keys.held(in: flooder) == 0 && ledger.keys.count == 0)
    }

    @Test func wrongCodesFromStrangersNeverVoidTheRealOne() throws {
        let server = try ExecutableServer(["--in-memory"], environment: ["JUICE_MANAGER_TOKEN": Self.token])
        let manager = try PairedTillTests.quiet(server)
        #expect(try manager.command("AUTH \(Self.token)") == "OK AUTH")
        let made = try manager.command("TILLS NEW Victim")
        let code = String(try #require(made.split(separator: " ").first { $0.hasPrefix("code=") }).dropFirst(5))
        // 60 wrong codes: 3 a connection (the third closes it), from 20 addresses.
        for n in 0..<20 {
            let guesser = try PairedTillTests.quiet(server, from: "127.0.1.\(n + 1)")
            for _ in 0..<3 { #expect(try guesser.command("PAIR ZZZZ-ZZZZ").hasPrefix("ERR AUTH_FAILED no such pairing code")) }
            #expect(guesser.waitClosed(), "the third wrong code closes the connection")
        }
        // One address guessing on: after 10 wrong codes a minute its PAIR is refused unchecked.
        var refusedUnchecked = false
        for _ in 0..<4 {
            let guesser = try PairedTillTests.quiet(server, from: "127.0.2.1")
            for _ in 0..<3 {
                guard let reply = try? guesser.command("PAIR ZZZZ-ZZZZ") else { break }
                if reply.hasPrefix("ERR AUTH_FAILED too many failures") { refusedUnchecked = true }
            }
        }
        #expect(refusedUnchecked)
        let till = try PairedTillTests.quiet(server)
        #expect(try till.command("PAIR \(code)").hasPrefix("OK PAIR till=1 "), "the manager's code still pairs")
        server.stop()
    }

    static func journal(_ payloads: [String]) -> [UInt8] { payloads.flatMap { RecoveryTests.framed($0) } }

    @Test("till records the store could not have written are refused, naming file and offset", arguments: [
        ["3 P @1 1 4294967295 \(hash) Big"],                                     // out of turn (and at the top: the next would overflow)
        ["3 P @1 1 1 \(hash) A", "3 P @1 2 1 \(hash) A again"],                  // paired twice
        ["3 P @1 1 1 \(hash) A", "3 X @2 2 1", "3 P @3 3 1 \(hash) Back"],      // un-revoked
        ["3 P @1 1 1 \(hash) A", "3 X @2 2 1", "3 X @3 3 1"],                    // revoked twice
        ["3 P @1 1 1 \(hash) A", "3 X @2 2 1", "3 N @3 3 1 B"],                  // a revoked till renamed
        ["3 O @1 1 1 banana 1 - till:2 - banana=8"],                               // a sale by a till never paired
        ["3 P @1 1 1 \(hash) A", "3 X @2 2 1", "3 O @3 3 1 banana 1 - till:1 - banana=8"],  // by a revoked till
    ])
    func craftedTillRecords(_ payloads: [String]) throws {
        let refusal = try #require(RecoveryTests.refusal(journal: Self.journal(payloads)), "taken: \(payloads)")
        #expect(refusal.contains("/data/journal") && refusal.contains("offset"), "\(refusal)")
    }

    @Test func aSnapshotRevokingATillNeverPairedIsRefused() throws {
        var ledger = StockLedger(menu: .standard, initialStock: 10)
        _ = ledger.tills.apply(.tillPaired(lsn: 1, till: 1, hash: Self.hash, name: "A", time: 1))
        let good = Snapshot.encode(ledger, lsn: 0)
        #expect(RecoveryTests.refusal(snapshot: good, journal: nil) == nil)
        let text = String(decoding: good, as: UTF8.self).split(separator: "\n").map(String.init)
        let payloads = text.map { String($0.split(separator: " ", maxSplits: 2)[2]) }
        var crafted = payloads.dropLast().map { $0 }
        crafted.append("3 X @2 1 7")
        crafted.append("E \(crafted.count)")
        let refusal = try #require(RecoveryTests.refusal(snapshot: Self.journal(crafted), journal: nil))
        #expect(refusal.contains("/data/snapshot") && refusal.contains("offset"), "\(refusal)")
    }

    @Test func aRepeatedTillHeaderIsRefusedAndAWrongTokenBesideOneToo() async throws {
        try await RunningServer.with({ $0.managerToken = Array(Self.token.utf8) }) { s in
            let http = try #require(await s.server.httpPort)
            let made = try HTTPClient.post(port: http, "/tills/codes", json: "{}", headers: ["Authorization: Bearer \(Self.token)"])
            let code = try #require(try made.json()["code"] as? String)
            let paired = try HTTPClient.post(port: http, "/tills/pair", json: "{\"code\":\"\(code)\"}")
            let credential = try #require(try paired.json()["credential"] as? String)
            let twice = try HTTPClient.post(port: http, "/orders", json: #"{"juice":"banana"}"#,
                                            headers: ["Juice-Till: \(credential)", "Juice-Till: 9-aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"])
            #expect(twice.status == 400 && twice.text.contains("repeated Juice-Till header"), "\(twice.text)")
            let wrongToken = try HTTPClient.post(port: http, "/orders", json: #"{"juice":"banana"}"#,
                                                 headers: ["Juice-Till: \(credential)", "Authorization: Bearer wrong"])
            #expect(wrongToken.status == 401)
            let c = try s.client()
            #expect(try c.command("STOCK banana") == "OK STOCK seq=0 banana=10", "nothing was sold")
        }
    }

    /// Ten wrong codes pipelined in one write get three answers, then the close: each PAIR is
    /// judged and counted before the next line runs (a run of sixteen used to be checked whole).
    @Test func pipelinedGuessesGetThreeAnswersThenTheClose() throws {
        let server = try ExecutableServer(["--in-memory"], environment: ["JUICE_MANAGER_TOKEN": Self.token])
        let guesser = try PairedTillTests.quiet(server, from: "127.0.3.1")
        try guesser.send(Array(repeating: "PAIR ZZZZ-ZZZZ", count: 10).joined(separator: "\r\n"))
        var answers: [String] = []
        while let line = try? guesser.readLine() { answers.append(line) }
        #expect(answers.count == 3 && answers.allSatisfy { $0.hasPrefix("ERR AUTH_FAILED no such pairing code") }, "\(answers)")
        #expect(guesser.waitClosed())
        server.stop()
    }
}

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

/// Exactly once that no client can break: the key memory keeps every key younger than its
/// retention window, whatever another client sends, across restarts and compaction; RESTOCK
/// and SET take keys as ORDER does; one client cannot inflate the lost-sales figures.
@Suite(.onOwnThreads) struct ExactlyOnceTests {
    static let tillKey = "till-3fa9c2d1.0a1b2c-7"

    /// The audit's attack, as it was run: a till's keyed order over HTTP, then 100,000 refused
    /// keyed orders pipelined on another connection (no token needed), then the till's retry.
    /// The key memory used to keep the last 100,000 keys, so the flood pushed the till's key
    /// out and the retry sold a second banana juice.
    @Test func aFloodOfKeysCannotMakeATillsRetrySellTwice() throws {
        let server = try ExecutableServer(["--in-memory"])
        let first = try HTTPClient.post(port: server.httpPort, "/orders", json: #"{"juice":"banana"}"#,
                                        headers: ["Idempotency-Key: \(Self.tillKey)"])
        #expect(first.status == 200, "\(first.text)")
        let seq = try #require(try first.json()["seq"] as? Int)

        let flooder = try server.client()
        #expect(try flooder.command("EVENTS OFF") == "OK EVENTS off")
        var busy = 0, refused = 0
        for batch in 0..<50 {
            try flooder.sendRaw(Array((0..<2000).map { "ORDER strawberry 1000 key=junk-\(batch)-\($0)\r\n" }.joined().utf8))
            for _ in 0..<2000 {
                let reply = try flooder.reply()
                if reply.hasPrefix("ERR BUSY your address holds its whole share of idempotency keys; retry in ") {
                    busy += 1
                } else {
                    try #require(reply == "ERR OUT_OF_STOCK needs strawberry=16000 has strawberry=10", "\(reply)")
                    refused += 1
                }
            }
        }
        // The address (the till's too: both are 127.0.0.1) holds its share, 10,000 keys, then
        // every new key is refused; none of the keys it holds is dropped to make room.
        #expect(refused == Limits.keysPerAddress - 1 && busy == 100_000 - refused)

        let retry = try HTTPClient.post(port: server.httpPort, "/orders", json: #"{"juice":"banana"}"#,
                                        headers: ["Idempotency-Key: \(Self.tillKey)"])
        #expect(retry.status == 200)
        #expect(try retry.json()["seq"] as? Int == seq && retry.json()["dup"] as? Bool == true, "\(retry.text)")
        let stats = values(try flooder.command("STATS"))
        #expect(stats["sold_banana"] == 1 && stats["seq"] == seq)
        #expect(try flooder.command("STOCK banana") == "OK STOCK seq=\(seq) banana=8")
        // One address adds at most 100 lost juices a minute (and one order past that when its
        // allowance is whole): the first refusal counts its 1,000, the 99,999 after it none.
        #expect(stats["lost_strawberry"] == 1000 && stats["orders_refused"] == 1, "\(stats)")
    }

    @Test func aFullShareIsBusyAndChangesNothingWhileHeldKeysStillAnswer() async throws {
        try await RunningServer.with({ $0.keyPolicy.sharePerAddress = 3 }) { s in
            let http = try #require(await s.server.httpPort)
            let c = try s.client()
            #expect(try c.command("EVENTS OFF") == "OK EVENTS off")
            #expect(try c.command("ORDER banana key=k1") == "OK ORDER banana 1 seq=1 banana=8 amount=4000")
            #expect(try c.command("RESTOCK kiwi 5 key=k2") == "OK RESTOCK seq=2 kiwi=15")
            #expect(try c.command("ORDER strawberry 1 key=k3") == "ERR OUT_OF_STOCK needs strawberry=16 has strawberry=10")
            let busy = try c.command("ORDER banana key=k4")
            #expect(busy.hasPrefix("ERR BUSY your address holds its whole share of idempotency keys; retry in "), "\(busy)")
            #expect(try c.command("SET kiwi 1 key=k5").hasPrefix("ERR BUSY "))
            // Held keys still get their first answer; unkeyed orders still sell.
            #expect(try c.command("ORDER banana key=k1") == "OK ORDER banana 1 seq=1 banana=8 amount=4000 dup")
            #expect(try c.command("ORDER banana") == "OK ORDER banana 1 seq=3 banana=6 amount=4000")
            let refused = try HTTPClient.post(port: http, "/orders", json: #"{"juice":"banana"}"#, headers: ["Idempotency-Key: k6"])
            #expect(refused.status == 503)
            #expect(try refused.json()["error"] as? String == "BUSY")
            let retryAfter = try #require(refused.header("Retry-After").flatMap { Int($0) })
            #expect(retryAfter >= 1 && retryAfter <= 86_400)
            #expect(try c.command("STOCK") == "OK STOCK seq=3 strawberry=10 banana=6 pineapple=10 kiwi=15 mango=10")
        }
    }

    /// Behind a trusted proxy, each forwarded client has its own share: one filling its share
    /// does not make another's new key BUSY.
    @Test func behindATrustedProxyEachClientHasItsOwnShare() async throws {
        try await RunningServer.with({ $0.keyPolicy.sharePerAddress = 2; $0.trustedProxies = [AddressRange("127.0.0.2/32")!] }) { s in
            let http = try #require(await s.server.httpPort)
            func order(_ key: String, for client: String) throws -> Int {
                let body = #"{"juice":"banana"}"#
                let head = "POST /orders HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nContent-Type: application/json\r\n"
                    + "Content-Length: \(body.utf8.count)\r\nIdempotency-Key: \(key)\r\nX-Forwarded-For: \(client)\r\n\r\n" + body
                return try HTTPClient.exchange(port: http, Array(head.utf8), from: "127.0.0.2").status
            }
            #expect(try order("a1", for: "203.0.113.7") == 200 && order("a2", for: "203.0.113.7") == 200)
            #expect(try order("a3", for: "203.0.113.7") == 503, "its share is full")
            #expect(try order("b1", for: "203.0.113.8") == 200, "another client behind the same proxy")
            #expect(try order("a1", for: "203.0.113.7") == 200, "a held key still answers")
        }
    }

    @Test func restockAndSetTakeKeysOverBothProtocols() async throws {
        try await RunningServer.with { s in
            let http = try #require(await s.server.httpPort)
            let c = try s.client()
            #expect(try c.command("EVENTS OFF") == "OK EVENTS off")
            let first = try HTTPClient.post(port: http, "/restock", json: #"{"fruit":"kiwi","amount":5}"#, headers: ["Idempotency-Key: editor-1"])
            #expect(first.status == 200)
            #expect(first.text == #"{"ok":true,"seq":1,"stock":{"kiwi":15},"dup":false}"#)
            let again = try HTTPClient.post(port: http, "/restock", json: #"{"fruit":"kiwi","amount":5}"#, headers: ["Idempotency-Key: editor-1"])
            #expect(again.status == 200)
            #expect(again.text == #"{"ok":true,"seq":1,"stock":{"kiwi":15},"dup":true}"#)
            #expect(try c.command("RESTOCK kiwi 5 key=editor-1") == "OK RESTOCK seq=1 kiwi=15 dup")
            #expect(try c.command("STOCK kiwi") == "OK STOCK seq=1 kiwi=15", "added once")
            // The same key for another write is refused, as for orders.
            let other = try HTTPClient.post(port: http, "/restock", json: #"{"fruit":"kiwi","amount":6}"#, headers: ["Idempotency-Key: editor-1"])
            #expect(other.status == 409)
            #expect(try other.json()["message"] as? String == "key 'editor-1' was used for RESTOCK kiwi 5")
            #expect(try c.command("SET kiwi 3 key=editor-1") == "ERR KEY_REUSED key 'editor-1' was used for RESTOCK kiwi 5")
            // SET over TCP, repeated over HTTP.
            #expect(try c.command("SET mango 4 key=editor-2") == "OK SET seq=2 mango=4")
            let set = try HTTPClient.post(port: http, "/set", json: #"{"fruit":"mango","amount":4}"#, headers: ["Idempotency-Key: editor-2"])
            #expect(set.text == #"{"ok":true,"seq":2,"stock":{"mango":4},"dup":true}"#)
            // Unkeyed writes answer as they always did; a malformed key is refused, not ignored.
            #expect(try HTTPClient.post(port: http, "/set", json: #"{"fruit":"mango","amount":4}"#).text == #"{"ok":true,"seq":3,"stock":{"mango":4}}"#)
            let bad = try HTTPClient.post(port: http, "/restock", json: #"{"fruit":"kiwi","amount":5}"#, headers: ["Idempotency-Key: no/slashes"])
            #expect(bad.status == 400)
            #expect(try c.command("RESTOCK kiwi 5 key=") == "ERR BAD_ARGUMENT \(CommandParser.keyRule)")
            #expect(try c.command("STOCK kiwi") == "OK STOCK seq=3 kiwi=15")
        }
    }

    @Test func oneClientCannotInflateTheLostSales() async throws {
        try await RunningServer.with { s in
            let c = try s.client()
            #expect(try c.command("EVENTS OFF") == "OK EVENTS off")
            let refusal = "ERR OUT_OF_STOCK needs strawberry=960 has strawberry=10"
            #expect(try c.command("ORDER strawberry 60") == refusal)
            #expect(try c.command("ORDER strawberry 60") == refusal, "answered the same")
            // The first 60 fit the 100 a minute; the next 60 do not (40 left).
            let stats = values(try c.command("STATS"))
            #expect(stats["lost_strawberry"] == 60 && stats["orders_refused"] == 1 && stats["short_strawberry"] == 1, "\(stats)")
        }
        try await RunningServer.with { s in
            let c = try s.client()
            // One big party turned away counts in full while the allowance is whole; the
            // allowance is then in debt, and nothing more counts for a while.
            #expect(try c.command("ORDER strawberry 101").hasPrefix("ERR OUT_OF_STOCK"))
            #expect(try c.command("ORDER strawberry 1000").hasPrefix("ERR OUT_OF_STOCK"))
            #expect(try c.command("ORDER strawberry 1").hasPrefix("ERR OUT_OF_STOCK"))
            let stats = values(try c.command("STATS"))
            #expect(stats["lost_strawberry"] == 101 && stats["orders_refused"] == 1, "\(stats)")
        }
    }

    /// Keys outlive a SIGKILL and a compaction with their first answer, from the journal and
    /// from the snapshot, which now records each key's time.
    @Test func keysSurviveACrashAndCompaction() throws {
        let s = try DataServer(["--journal-max-bytes", "1024"])
        var c = s.client
        #expect(try c.command("EVENTS OFF") == "OK EVENTS off")
        #expect(try c.command("ORDER banana key=early") == "OK ORDER banana 1 seq=1 banana=8 amount=4000")
        #expect(try c.command("RESTOCK kiwi 7 key=restock-1") == "OK RESTOCK seq=2 kiwi=17")
        // Enough records to pass 1 KiB: the next run of commands compacts.
        for i in 0..<30 { #expect(try c.command("RESTOCK mango 1 key=m-\(i)").hasPrefix("OK RESTOCK")) }
        #expect(s.server.logShows("compacted the journal"))
        #expect(try c.command("SET pineapple 3 key=late") == "OK SET seq=33 pineapple=3")
        s.server.kill9()
        let snapshot = readText(s.data + "/snapshot")
        // Version 3: each key's scope (an anonymous client's address) and its first outcome as fields.
        #expect(snapshot.contains(" 3 K @") && snapshot.contains(" addr:127.0.0.1 early sale 1 4000 - banana 1 banana=8\n"), "\(snapshot)")
        #expect(snapshot.contains(" addr:127.0.0.1 restock-1 applied 2 RESTOCK kiwi 7 kiwi=17\n"))

        try s.restart(crash: true)  // killed already: started again on its data
        c = s.client
        #expect(try c.command("EVENTS OFF") == "OK EVENTS off")
        #expect(try c.command("ORDER banana key=early") == "OK ORDER banana 1 seq=1 banana=8 amount=4000 dup")
        #expect(try c.command("RESTOCK kiwi 7 key=restock-1") == "OK RESTOCK seq=2 kiwi=17 dup")
        #expect(try c.command("SET pineapple 3 key=late") == "OK SET seq=33 pineapple=3 dup")
        #expect(try c.command("STOCK") == "OK STOCK seq=33 strawberry=10 banana=8 pineapple=3 kiwi=17 mango=40")
        s.server.stop()
    }

    /// A key's age is its first use, kept on disk: past the window it is forgotten after a
    /// restart too (a key recovered without its time would look new, and be kept).
    @Test func aKeyAgesOutAfterTheWindowAcrossARestart() throws {
        let s = try DataServer(["--key-retention", "2"])
        #expect(try s.client.command("ORDER banana key=old") == "OK ORDER banana 1 seq=1 banana=8 amount=4000")
        #expect(values(try s.client.command("STATS"))["keys"] == 1)
        s.server.stop()
        Thread.sleep(forTimeInterval: 3)  // not a timing assertion: the key must be older than 2 s
        try s.restart()  // stopped already: started again on its data
        #expect(values(try s.client.command("STATS"))["keys"] == 0)
        #expect(try s.client.command("ORDER banana key=old") == "OK ORDER banana 1 seq=2 banana=6 amount=4000")
        s.server.stop()
    }

    /// A data directory written by the build before journal records had times (version 1):
    /// its state, its keys and their answers come back, new records are version 3, and the
    /// mix reads back after a crash.
    @Test func aVersionOneDataDirectoryOpens() throws {
        let dir = TemporaryDirectory()
        let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/datadir-v1").path
        for name in ["snapshot", "journal", "menu.json"] {
            try FileManager.default.copyItem(atPath: fixture + "/" + name, toPath: dir.path + "/" + name)
        }
        let args = ["--data", dir.path]
        var server = try ExecutableServer(args)
        var c = try server.client()
        #expect(try c.command("EVENTS OFF") == "OK EVENTS off")
        let expected = "OK STOCK seq=26 strawberry=0 banana=8 pineapple=20 kiwi=24 mango=7"
        #expect(try c.command("STOCK") == expected)
        let stats = values(try c.command("STATS"))
        #expect(stats["orders_served"] == 10 && stats["orders_refused"] == 8 && stats["keys"] == 15)
        #expect(stats["lost_pineapple"] == 20 && stats["lost_kiwi"] == 4 && stats["short_strawberry"] == 3)
        // Keys from the snapshot (K version 1) and from the journal answer as they first did.
        #expect(try c.command("ORDER kiwi key=old-fill-6") == "ERR OUT_OF_STOCK needs kiwi=3 has kiwi=0 dup")
        #expect(try c.command("ORDER mango-kiwi 2 key=old-till-2") == "OK ORDER mango-kiwi 2 seq=2 mango=6 kiwi=8 dup")
        #expect(try c.command("ORDER pineapple key=old-after-1") == "OK ORDER pineapple 1 seq=24 pineapple=20 dup")
        #expect(try c.command("ORDER banana key=new-1") == "OK ORDER banana 1 seq=27 banana=6 amount=4000")
        server.kill9()
        let journal = readText(dir.path + "/journal").replacingOccurrences(of: "\0", with: "")
        #expect(journal.contains(" O 31 24 pineapple 1 key=old-after-1 pineapple=20\n"), "version 1 kept as it was")
        #expect(journal.contains(" 3 O @") && journal.contains(" 35 27 banana 1 key=new-1 addr:127.0.0.1 4000 banana=6\n"), "\(journal)")

        server = try ExecutableServer.restart(args, port: server.port)
        c = try server.client()
        #expect(try c.command("ORDER banana key=new-1") == "OK ORDER banana 1 seq=27 banana=6 amount=4000 dup")
        #expect(try c.command("ORDER kiwi key=old-fill-6") == "ERR OUT_OF_STOCK needs kiwi=3 has kiwi=0 dup")
        #expect(try c.command("STOCK") == "OK STOCK seq=27 strawberry=0 banana=6 pineapple=20 kiwi=24 mango=7")
        server.stop()
    }

    /// A key used again once it aged out is a new write, and its age starts again. Replay used to
    /// keep the second use under the first one's age, so a crash and restart 4 s after the
    /// second use forgot it at once, and its retry sold a second time.
    @Test func aKeyUsedAgainAfterItAgedOutIsKeptFromItsSecondUseAcrossACrash() throws {
        let t0: Int64 = 1_795_632_321
        let s = try ShopDayReportTests.ClockedServer(["--key-retention", "60"], at: t0)
        #expect(try s.client.command("ORDER banana key=k") == "OK ORDER banana 1 seq=1 banana=8 amount=4000")
        try s.at(t0 + 61)
        // A new key makes the memory forget those past the window: `k` is then new again.
        #expect(try s.client.command("ORDER banana key=other") == "OK ORDER banana 1 seq=2 banana=6 amount=4000")
        #expect(try s.client.command("ORDER banana 2 key=k") == "OK ORDER banana 2 seq=3 banana=2 amount=8000")
        try s.at(t0 + 65)
        try s.restart(crash: true)
        #expect(try s.client.command("ORDER banana 2 key=k") == "OK ORDER banana 2 seq=3 banana=2 amount=8000 dup")
        #expect(try s.client.command("STOCK banana") == "OK STOCK seq=3 banana=2")
        s.server.stop()
    }
}

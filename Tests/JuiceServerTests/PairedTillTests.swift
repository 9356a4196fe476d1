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
import JuiceServer
import JuiceTestSupport
import Testing

/// Every till a known device (issue 31): pairing, credentials, keys per till, revoking, and all
/// of it across restarts and compactions, against the built server over real sockets.
@Suite("Paired tills", .serialized, .onOwnThreads)
struct PairedTillTests {
    static let token = "m4nager-t0ken"

    /// A line client that reads no events (their lines would interleave with replies).
    static func quiet(_ server: ExecutableServer, from address: String? = nil) throws -> LineClient {
        let c = try LineClient(port: server.port, from: address)
        #expect(try c.command("EVENTS OFF") == "OK EVENTS off")
        return c
    }

    /// Makes a code as the manager and pairs a new connection with it: (the till's connection, its credential).
    static func pair(_ server: ExecutableServer, manager: LineClient, name: String) throws -> (LineClient, String) {
        let made = try manager.command("TILLS NEW \(name)")
        #expect(made.hasPrefix("OK TILLS NEW code=") && made.hasSuffix(" name=\(name)"), "\(made)")
        let code = String(made.split(separator: " ")[3].dropFirst(5))
        let till = try quiet(server)
        let paired = try till.command("PAIR \(code.lowercased())")
        #expect(paired.hasPrefix("OK PAIR till=") && paired.hasSuffix(" name=\(name)"), "\(paired)")
        let credential = String(paired.split(separator: " ").first { $0.hasPrefix("credential=") }!.dropFirst(11))
        // Single use.
        #expect(try quiet(server).command("PAIR \(code)").hasPrefix("ERR AUTH_FAILED no such pairing code"))
        return (till, credential)
    }

    @Test func aTokenServerTakesOrdersOnlyFromPairedTillsAndKeysAreEachTillsOwn() throws {
        let dir = TemporaryDirectory()
        let args = ["--data", dir.path]
        // A clock that stands still: "orders today" must not cross a business day mid-test.
        let clock = dir.path + ".clock"
        try "1795791120".write(toFile: clock, atomically: true, encoding: .utf8)
        let environment = ["JUICE_MANAGER_TOKEN": Self.token, "JUICE_TEST_CLOCK": clock]
        var server = try ExecutableServer(args, environment: environment)
        let stranger = try Self.quiet(server, from: "127.0.0.2")
        #expect(try stranger.command("ORDER banana key=till3:000124").hasPrefix("ERR FORBIDDEN ORDER needs a paired till"))
        #expect(try stranger.command("TILLS NEW x").hasPrefix("ERR FORBIDDEN"))
        let manager = try Self.quiet(server)
        #expect(try manager.command("AUTH \(Self.token)") == "OK AUTH")
        let (front, frontCredential) = try Self.pair(server, manager: manager, name: "Front till")
        let (back, _) = try Self.pair(server, manager: manager, name: "Back till")
        #expect(try front.command("ORDER banana key=k1") == "OK ORDER banana 1 seq=1 banana=8 amount=4000")
        // The same key from another till is another key; from the manager, a third.
        #expect(try back.command("ORDER banana 2 key=k1") == "OK ORDER banana 2 seq=2 banana=4 amount=8000")
        #expect(try manager.command("ORDER banana key=k1") == "OK ORDER banana 1 seq=3 banana=2 amount=4000")
        #expect(try front.command("ORDER banana key=k1") == "OK ORDER banana 1 seq=1 banana=8 amount=4000 dup")
        #expect(try front.command("ORDER kiwi key=k1") == "ERR KEY_REUSED key 'k1' was used for ORDER banana 1")
        // Another connection of the same till shares its keys.
        let again = try Self.quiet(server)
        #expect(try again.command("TILL \(frontCredential)") == "OK TILL till=1 name=Front till")
        #expect(try again.command("ORDER banana key=k1") == "OK ORDER banana 1 seq=1 banana=8 amount=4000 dup")
        #expect(try again.command("TILL 1-aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa") == "ERR AUTH_FAILED unknown till credential")
        let list = try manager.command("TILLS")
        #expect(list.hasPrefix("OK TILLS 2 | till=1 "), "\(list)")
        #expect(list.contains("connected=yes orders_today=1 juices_today=1 name=Front till | till=2 "), "\(list)")
        #expect(try manager.command("TILLS RENAME 2 The back  till").hasSuffix("name=The back  till"))

        // Tills, names and keys survive a crash, and a compaction.
        server.kill9()
        server = try ExecutableServer.restart(args + ["--journal-max-bytes", "1024"], port: server.port, environment: environment)
        let front2 = try Self.quiet(server)
        #expect(try front2.command("TILL \(frontCredential)") == "OK TILL till=1 name=Front till")
        #expect(try front2.command("ORDER banana key=k1") == "OK ORDER banana 1 seq=1 banana=8 amount=4000 dup")
        // Refused orders (strawberry needs 16) are journaled for their keys: enough to compact.
        for i in 0..<30 { #expect(try front2.command("ORDER strawberry key=f\(i)").hasPrefix("ERR OUT_OF_STOCK")) }
        #expect(server.logShows("compacted the journal"))
        server.stop()
        let snapshot = readText(dir.path + "/snapshot")
        #expect(snapshot.contains(" 3 K @") && snapshot.contains(" till:1 k1 sale 1 4000 - banana 1 banana=8"), "typed keys, by till")
        #expect(snapshot.contains(" 3 P @") && snapshot.contains(" 3 Q "), "tills and their days in the snapshot")
        server = try ExecutableServer.restart(args, port: server.port, environment: environment)
        let front3 = try Self.quiet(server)
        #expect(try front3.command("TILL \(frontCredential)") == "OK TILL till=1 name=Front till")
        #expect(try front3.command("ORDER banana key=k1") == "OK ORDER banana 1 seq=1 banana=8 amount=4000 dup")
        #expect(try front3.command("ORDER strawberry key=f29").hasSuffix(" dup"))
        let manager3 = try Self.quiet(server)
        #expect(try manager3.command("AUTH \(Self.token)") == "OK AUTH")
        let listed = try manager3.command("TILLS")
        #expect(listed.contains("orders_today=1 juices_today=1 name=Front till"), "\(listed)")
        #expect(listed.hasSuffix("name=The back  till"), "\(listed)")
        server.stop()
    }

    /// A connection that revokes the till it is itself signed in as (no token: it is the manager
    /// too) gets its answer and then closes, like every other connection of that till. After the
    /// seam's first cut it stayed open, still known, refusing its own writes.
    @Test func revokingTheTillItIsSignedInAsClosesThatConnectionToo() throws {
        let server = try ExecutableServer(["--in-memory"])
        let both = try Self.quiet(server)
        let made = try both.command("TILLS NEW Self")
        let code = String(made.split(separator: " ")[3].dropFirst(5))
        #expect(try both.command("PAIR \(code)").hasPrefix("OK PAIR till=1 "))
        #expect(try both.command("TILLS REVOKE 1").hasPrefix("OK TILLS REVOKE till=1 "))
        #expect(both.waitClosed(), "still open after revoking its own till")
    }

    @Test func revokingClosesTheTillsConnectionsAndRefusesItFromThenOn() throws {
        let server = try ExecutableServer(["--in-memory"], environment: ["JUICE_MANAGER_TOKEN": Self.token])
        let manager = try Self.quiet(server)
        #expect(try manager.command("AUTH \(Self.token)") == "OK AUTH")
        let (till, credential) = try Self.pair(server, manager: manager, name: "Lost tablet")
        #expect(try till.command("ORDER banana key=a") == "OK ORDER banana 1 seq=1 banana=8 amount=4000")
        // Over HTTP too: the credential in its header.
        let sale = try HTTPClient.post(port: server.httpPort, "/orders", json: #"{"juice":"banana"}"#,
                                       headers: ["Juice-Till: \(credential)", "Idempotency-Key: b"])
        #expect(sale.status == 200, "\(sale.text)")
        #expect(try manager.command("TILLS REVOKE 1").hasPrefix("OK TILLS REVOKE till=1 "))
        #expect(till.waitClosed(), "the revoked till's connection closes")
        let retry = try Self.quiet(server)
        #expect(try retry.command("TILL \(credential)").hasPrefix("ERR REVOKED this till was removed"))
        #expect(retry.waitClosed())
        let refused = try HTTPClient.post(port: server.httpPort, "/orders", json: #"{"juice":"banana"}"#,
                                          headers: ["Juice-Till: \(credential)", "Idempotency-Key: c"])
        #expect(refused.status == 401 && refused.text.contains("\"REVOKED\""), "\(refused.text)")
        // A retry of a sale made before the revoke is refused as well: nothing more from it.
        let retried = try HTTPClient.post(port: server.httpPort, "/orders", json: #"{"juice":"banana"}"#,
                                          headers: ["Juice-Till: \(credential)", "Idempotency-Key: b"])
        #expect(retried.status == 401)
        #expect(try manager.command("STOCK banana") == "OK STOCK seq=2 banana=6")
        #expect(try manager.command("TILLS REVOKE 1") == "ERR BAD_ARGUMENT no paired till 1, see TILLS")
        // A stranger without a credential gets the pairing hint.
        let anonymous = try HTTPClient.post(port: server.httpPort, "/orders", json: #"{"juice":"banana"}"#)
        #expect(anonymous.status == 401 && anonymous.text.contains("\"FORBIDDEN\""), "\(anonymous.text)")
        server.stop()
    }

    @Test func pairingOverHTTP() throws {
        // A clock that stands still: "orders today" must not cross a business day mid-test.
        let clock = try StillClock()
        let server = try ExecutableServer(["--in-memory"], environment: clock.environment.merging(["JUICE_MANAGER_TOKEN": Self.token]) { $1 })
        let bearer = "Authorization: Bearer \(Self.token)"
        #expect(try HTTPClient.post(port: server.httpPort, "/tills/codes", json: "{}").status == 401)
        let made = try HTTPClient.post(port: server.httpPort, "/tills/codes", json: #"{"name":"Tablet 1"}"#, headers: [bearer])
        let code = try #require(try made.json()["code"] as? String)
        let wrong = try HTTPClient.post(port: server.httpPort, "/tills/pair", json: #"{"code":"AAAA-AAAA"}"#)
        #expect(wrong.status == 401)
        let paired = try HTTPClient.post(port: server.httpPort, "/tills/pair", json: "{\"code\":\"\(code)\"}")
        let body = try paired.json()
        let credential = try #require(body["credential"] as? String)
        #expect((body["till"] as? [String: Any])?["name"] as? String == "Tablet 1")
        let sale = try HTTPClient.post(port: server.httpPort, "/orders", json: #"{"juice":"mango"}"#,
                                       headers: ["Juice-Till: \(credential)", "Idempotency-Key: t-1"])
        #expect(sale.status == 200, "\(sale.text)")
        let list = try HTTPClient.get(port: server.httpPort, "/tills/list", headers: [bearer])
        let tills = try #require(try list.json()["tills"] as? [[String: Any]])
        #expect(tills.count == 1 && tills[0]["orders_today"] as? Int == 1 && tills[0]["name"] as? String == "Tablet 1")
        #expect(try HTTPClient.get(port: server.httpPort, "/tills/list").status == 401)
        server.stop()
    }

    /// Issue 31's first attack, shrunk: anonymous addresses fill the shared key memory; from then
    /// on an anonymous keyed order is BUSY, but a paired till sells with new keys all the same.
    @Test func anAnonymousKeyFloodCannotStopAPairedTill() throws {
        let server = try ExecutableServer(["--in-memory", "--key-memory", "300", "--keys-per-address", "100"])
        let manager = try Self.quiet(server)
        let (till, _) = try Self.pair(server, manager: manager, name: "Till")
        for address in ["127.0.0.2", "127.0.0.3", "127.0.0.4"] {
            let flood = try Self.quiet(server, from: address)
            for i in 0..<100 { _ = try flood.command("ORDER strawberry 1000 key=x\(address)-\(i)") }
        }
        #expect(try Self.quiet(server, from: "127.0.0.5").command("ORDER banana key=n").hasPrefix("ERR BUSY"))
        for i in 0..<5 { #expect(try till.command("ORDER banana key=t\(i)").hasPrefix("OK ORDER banana 1 seq=")) }
        server.stop()
    }

    /// An address's share of the shared key memory is counted again after a restart (it used to
    /// start from nothing, so each restart handed one address another full share).
    @Test func anAddressShareSurvivesARestart() throws {
        let dir = TemporaryDirectory()
        let args = ["--data", dir.path, "--key-memory", "300", "--keys-per-address", "100"]
        var server = try ExecutableServer(args)
        var flood = try Self.quiet(server, from: "127.0.0.2")
        for i in 0..<100 { _ = try flood.command("ORDER strawberry 1000 key=x\(i)") }
        #expect(try flood.command("ORDER strawberry 1000 key=y").hasPrefix("ERR BUSY"))
        server.kill9()
        server = try ExecutableServer.restart(args, port: server.port)
        flood = try Self.quiet(server, from: "127.0.0.2")
        #expect(try flood.command("ORDER strawberry 1000 key=y").hasPrefix("ERR BUSY"), "its share is still full")
        #expect(try Self.quiet(server, from: "127.0.0.3").command("ORDER strawberry 1000 key=y").hasPrefix("ERR OUT_OF_STOCK"))
        server.stop()
    }

    /// A data directory written by the build before version 3 (`Fixtures/datadir-v2`: a
    /// snapshot with version-2 keys and hours, a journal tail of version-2 records, made by
    /// 4dcd62d) opens with its state and its keys; new records are version 3, and the mix reads
    /// back after a crash and a compaction.
    @Test func aVersionTwoDataDirectoryOpens() throws {
        let dir = TemporaryDirectory()
        let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/datadir-v2").path
        for name in ["snapshot", "journal", "menu.json", "calendar", "store-id"] {
            try FileManager.default.copyItem(atPath: fixture + "/" + name, toPath: dir.path + "/" + name)
        }
        // The keys were used at 1795791037..55: the clock stands a minute later, within their day.
        let clock = dir.path + ".clock"
        try "1795791120".write(toFile: clock, atomically: true, encoding: .utf8)
        let args = ["--data", dir.path, "--journal-max-bytes", "4096"]
        var server = try ExecutableServer(args, environment: ["JUICE_TEST_CLOCK": clock])
        var c = try Self.quiet(server)
        #expect(try c.command("STOCK") == "OK STOCK seq=14 strawberry=10 banana=2 pineapple=1 kiwi=7 mango=0")
        let stats = values(try c.command("STATS"))
        #expect(stats["orders_served"] == 11 && stats["orders_refused"] == 11 && stats["keys"] == 23, "\(stats)")
        #expect(try c.command("ORDER banana key=v2-a-1") == "OK ORDER banana 1 seq=2 banana=6 dup")
        #expect(try c.command("ORDER strawberry 3 key=v2-b-short") == "ERR OUT_OF_STOCK needs strawberry=48 has strawberry=10 dup")
        #expect(try c.command("RESTOCK kiwi 5 key=v2-r-1") == "OK RESTOCK seq=7 kiwi=13 dup")
        #expect(try c.command("ORDER pineapple 3 key=v2-j-short") == "OK ORDER pineapple 3 seq=14 pineapple=1 dup")
        #expect(try c.command("REPORT 2026-11-27").hasPrefix("OK REPORT date=2026-11-27 orders_served=11 orders_refused=11 "))
        #expect(try c.command("ORDER kiwi key=v3-1") == "OK ORDER kiwi 1 seq=15 kiwi=4 amount=4500")
        server.kill9()
        let journal = readText(dir.path + "/journal").replacingOccurrences(of: "\0", with: "")
        #expect(journal.contains(" O @1795791055 25 14 pineapple 3 key=v2-j-short pineapple=1\n"), "version 2 kept as it was")
        #expect(journal.contains(" 3 O @1795791120 26 15 kiwi 1 key=v3-1 addr:127.0.0.1 4500 kiwi=4\n"), "\(journal)")
        server = try ExecutableServer.restart(args, port: server.port, environment: ["JUICE_TEST_CLOCK": clock])
        c = try Self.quiet(server)
        #expect(try c.command("ORDER kiwi key=v3-1") == "OK ORDER kiwi 1 seq=15 kiwi=4 amount=4500 dup")
        for i in 0..<60 { _ = try c.command("ORDER strawberry 1000 key=c\(i)") }
        #expect(server.logShows("compacted the journal"))
        server.kill9()
        server = try ExecutableServer.restart(args, port: server.port, environment: ["JUICE_TEST_CLOCK": clock])
        c = try Self.quiet(server)
        #expect(try c.command("ORDER banana key=v2-a-1") == "OK ORDER banana 1 seq=2 banana=6 dup", "a version-2 key, through a version-3 snapshot")
        #expect(try c.command("ORDER kiwi key=v3-1") == "OK ORDER kiwi 1 seq=15 kiwi=4 amount=4500 dup")
        #expect(try c.command("STOCK") == "OK STOCK seq=15 strawberry=10 banana=2 pineapple=1 kiwi=4 mango=0")
        server.stop()
    }

    /// Sales per till in the day report, as POS reports show sales per device: on `REPORT`,
    /// `/reports/day` and `/reports/tills.csv`, and a rename shows at once.
    @Test func theDayReportShowsSalesPerTill() throws {
        let dir = TemporaryDirectory()
        let clock = dir.path + ".clock"
        try "1795791120".write(toFile: clock, atomically: true, encoding: .utf8)
        let server = try ExecutableServer(["--in-memory"], environment: ["JUICE_MANAGER_TOKEN": Self.token, "JUICE_TEST_CLOCK": clock])
        let manager = try Self.quiet(server)
        #expect(try manager.command("AUTH \(Self.token)") == "OK AUTH")
        let (front, _) = try Self.pair(server, manager: manager, name: "=Front")
        let (back, _) = try Self.pair(server, manager: manager, name: "Back, by the door")
        #expect(try front.command("ORDER banana 2").hasPrefix("OK ORDER"))
        #expect(try front.command("ORDER kiwi").hasPrefix("OK ORDER"))
        #expect(try back.command("ORDER mango").hasPrefix("OK ORDER"))
        #expect(try back.command("ORDER strawberry").hasPrefix("ERR OUT_OF_STOCK"), "a refusal is no sale")
        let report = try manager.command("REPORT")
        // banana 2 × ₩4,000 and kiwi ₩4,500; mango ₩5,000.
        #expect(report.hasSuffix(" till_1_orders=2 till_1_juices=3 till_1_takings=12500 till_2_orders=1 till_2_juices=1 till_2_takings=5000"),
                "\(report)")
        let bearer = "Authorization: Bearer \(Self.token)"
        let day = try HTTPClient.get(port: server.httpPort, "/reports/day", headers: [bearer]).json()
        let tills = try #require(day["tills"] as? [[String: Any]])
        #expect(tills.count == 2 && tills[1]["name"] as? String == "Back, by the door" && tills[0]["juices"] as? Int == 3)
        #expect(try manager.command("TILLS RENAME 2 Terrace").hasSuffix("name=Terrace"))
        let renamed = try HTTPClient.get(port: server.httpPort, "/reports/day", headers: [bearer]).json()
        #expect((renamed["tills"] as? [[String: Any]])?[1]["name"] as? String == "Terrace", "a kept report is not stale")
        let csv = try HTTPClient.get(port: server.httpPort, "/reports/tills.csv", headers: [bearer])
        #expect(csv.status == 200 && csv.header("Content-Type") == "text/csv; charset=utf-8; header=present")
        let date = BusinessCalendar.dateText(Int32((1_795_791_120 - 4 * 3600) / 86_400))
        #expect(csv.text == "date,till,name,orders,juices,voids,takings\r\n\(date),1,'=Front,2,3,0,12500\r\n\(date),2,Terrace,1,1,0,5000\r\n", "\(csv.text)")
        #expect(try HTTPClient.get(port: server.httpPort, "/reports/tills.csv").status == 401)
        server.stop()
    }
}

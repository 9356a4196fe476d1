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
import JuiceServer
import Testing

/// Acknowledged means durable: restarts, crashes, damaged journals, retries and catch-up.
@Suite(.onOwnThreads) struct DurabilityTests {
    @Test func restartKeepsTheExactStateAndSalesLedger() throws {
        let directory = TemporaryDirectory(), dir = directory.path
        var server = try ExecutableServer(["--data", dir])
        var c = try server.client()
        #expect(try c.command("ORDER mango-kiwi 2") == "OK ORDER mango-kiwi 2 seq=1 mango=6 kiwi=8 amount=11000")
        #expect(try c.command("ORDER strawberry").hasPrefix("ERR OUT_OF_STOCK"))
        #expect(try c.command("RESTOCK banana 5") == "OK RESTOCK seq=2 banana=15")
        #expect(try c.command("SET pineapple 0") == "OK SET seq=3 pineapple=0")
        let before = try c.command("STOCK")
        #expect(server.terminate() == 0)

        server = try ExecutableServer(["--data", dir])
        c = try server.client()
        #expect(try c.command("STOCK") == before)
        let stats = values(try c.command("STATS"))
        #expect(stats["orders_served"] == 1 && stats["orders_refused"] == 1 && stats["sold_mango-kiwi"] == 2 && stats["seq"] == 3)
        #expect(try c.command("ORDER banana") == "OK ORDER banana 1 seq=4 banana=13 amount=4000")
        #expect(server.terminate() == 0)
    }

    /// 8 cashiers order and restock while the server is killed with SIGKILL mid-stream. After a
    /// restart every acknowledged change must be there, exactly as acknowledged.
    @Test(arguments: [150, 400, 900])
    func crashLosesNothingAcknowledged(killAfterMilliseconds: Int) throws {
        let directory = TemporaryDirectory(), dir = directory.path
        let server = try ExecutableServer(["--data", dir, "--initial-stock", "100000"])
        let acknowledged = Acknowledged()
        let clients = try (0..<8).map { _ in try server.client() }
        for c in clients { #expect(try c.command("EVENTS OFF") == "OK EVENTS off") }
        let requests = ["ORDER mango-kiwi", "ORDER banana 2", "RESTOCK kiwi 3", "ORDER strawberry-banana", "SET pineapple 7"]
        onThreads(clients.count + 1) { n in
            guard n < clients.count else {
                // The kill comes at the chosen time, but never before a change was acknowledged:
                // on a busy machine the first group commit's fsync (or the cashiers' first turn
                // on a core) can take longer than 150 ms, and a kill before any ack checks nothing.
                usleep(useconds_t(killAfterMilliseconds * 1000))
                _ = eventually { !acknowledged.all.isEmpty }  // giving up fails the check on `acks` below
                server.kill9()
                return
            }
            let c = clients[n]
            var i = n
            // At most 1,200 requests each: 9,600 changes stay within the 10,000 that SINCE 0 can
            // replay below (a fast machine made more than that in 900 ms, and got a snapshot).
            while i < n + 1_200 {
                guard let reply = try? c.command(requests[i % requests.count]) else { return }  // killed
                if reply.hasPrefix("OK"), let seq = values(reply)["seq"] { acknowledged.add(seq: seq, reply: reply) }
                i += 1
            }
        }
        let acks = acknowledged.all
        #expect(!acks.isEmpty, "nothing was acknowledged before the kill")
        let maxSeen = acks.keys.max() ?? 0

        let restarted = try ExecutableServer(["--data", dir, "--initial-stock", "100000"])
        let c = try restarted.client()
        let stock = try c.command("STOCK")
        let current = values(stock)["seq"] ?? -1
        #expect(current >= maxSeen, "recovered seq \(current) < acknowledged \(maxSeen)")
        // At most one unanswered request per cashier can have been applied without an answer.
        #expect(current <= maxSeen + clients.count)
        // Replay the recovered history: each acknowledged change must appear exactly as acknowledged.
        #expect(try c.command("SINCE 0") == "OK SINCE 0 \(current)")
        var state = ["strawberry": 100000, "banana": 100000, "pineapple": 100000, "kiwi": 100000, "mango": 100000]
        for seq in 1...max(current, 1) where current > 0 {
            let event = try c.nextEvent()
            var v = values(event)
            #expect(v.removeValue(forKey: "seq") == seq)
            if let ack = acks[seq] {
                var a = values(ack)
                a.removeValue(forKey: "seq")
                a.removeValue(forKey: "amount")  // the sale's money: in the reply, not in the event
                #expect(a == v, "seq \(seq): acknowledged \(ack), recovered \(event)")
            }
            state.merge(v) { $1 }
        }
        var expected = values(stock)
        expected.removeValue(forKey: "seq")
        #expect(expected == state)
        #expect(restarted.terminate() == 0)
    }

    @Test func aTornTailIsCutOffAndTheRestKept() throws {
        let directory = TemporaryDirectory(), dir = directory.path
        let (journal, bytes) = try journalAfter(bananaOrders: 3, in: dir)
        // Cut the last record in half, as a crash mid-write would.
        let end = try #require(bytes.lastIndex(of: 10)) + 1  // past the last record (the rest is preallocated zeros)
        #expect(truncate(journal, off_t(end - 10)) == 0)

        var server = try ExecutableServer(["--data", dir])
        #expect(server.logShows("torn"))
        #expect(server.logShows("journal"))
        let c = try server.client()
        #expect(try c.command("STOCK banana") == "OK STOCK seq=2 banana=6")
        #expect(try c.command("ORDER banana") == "OK ORDER banana 1 seq=3 banana=4 amount=4000")
        #expect(server.terminate() == 0)

        // Junk after the last record is a torn tail too.
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: journal))
        handle.seekToEndOfFile()
        handle.write(Data("17 deadbeef O 9 9 ban".utf8))
        try handle.close()
        server = try ExecutableServer(["--data", dir])
        #expect(try server.client().command("STOCK banana") == "OK STOCK seq=3 banana=4")
        #expect(server.terminate() == 0)
    }

    @Test func corruptionInTheMiddleRefusesToStartAndSaysWhere() throws {
        let directory = TemporaryDirectory(), dir = directory.path
        let (journal, written) = try journalAfter(bananaOrders: 5, in: dir)
        var bytes = written
        let lines = bytes.indices.filter { bytes[$0] == 10 }
        let secondRecord = lines[0] + 1
        let target = lines[1] - 3  // a digit inside the second record's payload
        bytes[target] = bytes[target] == UInt8(ascii: "1") ? UInt8(ascii: "2") : UInt8(ascii: "1")
        #expect(FileManager.default.createFile(atPath: journal, contents: Data(bytes)))
        let (status, output) = try ExecutableServer.run(["--data", dir, "--port", "0"])
        #expect(status != 0)
        #expect(output.contains("journal") && output.contains("offset \(secondRecord)"), "\(output)")
    }

    /// A record with a good checksum that this version would never write (a crafted negative
    /// count once trapped the server with SIGILL; a newer version's record was cut off as torn)
    /// is corruption wherever it is: the server refuses to start, says where, and changes nothing.
    @Test(arguments: ["O 4 4 banana -1 - banana=8", "Z 4 4 a record from a newer version"])
    func aChecksumValidImpossibleRecordRefusesToStartAndChangesNothing(payload: String) throws {
        let directory = TemporaryDirectory(), dir = directory.path
        let (journal, written) = try journalAfter(bananaOrders: 3, in: dir)
        let end = try #require(written.lastIndex(of: 10)) + 1
        let body = Array(payload.utf8)
        let crc = String(CRC32.checksum(body), radix: 16)
        let bytes = Array(written[..<end]) + Array("\(body.count) \(String(repeating: "0", count: 8 - crc.count) + crc) ".utf8) + body + [10]
        #expect(FileManager.default.createFile(atPath: journal, contents: Data(bytes)))
        let files = ["journal", "snapshot", "menu.json"]
        let before = files.map { FileManager.default.contents(atPath: dir + "/" + $0) }

        let (status, output) = try ExecutableServer.run(["--data", dir, "--port", "0"])
        #expect(status == 1)
        #expect(output.contains("journal \(journal) is corrupt at offset \(end)"), "\(output)")
        #expect(files.map { FileManager.default.contents(atPath: dir + "/" + $0) } == before)
    }

    @Test func keyedOrdersAreIdempotentAcrossARestart() throws {
        let directory = TemporaryDirectory(), dir = directory.path
        var server = try ExecutableServer(["--data", dir])
        var c = try server.client()
        #expect(try c.command("ORDER mango-kiwi key=till-1:0001") == "OK ORDER mango-kiwi 1 seq=1 mango=8 kiwi=9 amount=5500")
        #expect(try c.command("ORDER strawberry key=till-1:0002") == "ERR OUT_OF_STOCK needs strawberry=16 has strawberry=10")
        #expect(server.terminate() == 0)

        server = try ExecutableServer(["--data", dir])
        c = try server.client()
        #expect(try c.command("ORDER 망키쥬스 key=till-1:0001") == "OK ORDER mango-kiwi 1 seq=1 mango=8 kiwi=9 amount=5500 dup")
        #expect(try c.command("order MANGO-KIWI 1 key=till-1:0001") == "OK ORDER mango-kiwi 1 seq=1 mango=8 kiwi=9 amount=5500 dup")
        #expect(try c.command("ORDER strawberry key=till-1:0002") == "ERR OUT_OF_STOCK needs strawberry=16 has strawberry=10 dup")
        #expect(try c.command("ORDER mango-kiwi 2 key=till-1:0001").hasPrefix("ERR KEY_REUSED "))
        #expect(try c.command("ORDER banana key=till-1:0001").hasPrefix("ERR KEY_REUSED "))
        #expect(try c.command("ORDER banana key=bad/key").hasPrefix("ERR BAD_ARGUMENT "))
        #expect(try c.command("STOCK") == "OK STOCK seq=1 strawberry=10 banana=10 pineapple=10 kiwi=9 mango=8")
        #expect(server.terminate() == 0)
    }

    @Test func sinceReplaysFromZeroFromTheMiddleAndBeyondCompaction() throws {
        let directory = TemporaryDirectory(), dir = directory.path
        var server = try ExecutableServer(["--data", dir, "--journal-max-bytes", "2048", "--initial-stock", "1000"])
        var c = try server.client()
        #expect(try c.command("EVENTS OFF") == "OK EVENTS off")
        for _ in 0..<60 { #expect(try c.command("ORDER banana").hasPrefix("OK ORDER")) }
        #expect(try c.command("SINCE 0") == "OK SINCE 0 60")
        for seq in 1...60 { #expect(values(try c.nextEvent())["seq"] == seq) }
        #expect(try c.command("SINCE 57") == "OK SINCE 57 60")
        #expect(try c.nextEvent() == "EVENT STOCK seq=58 banana=884")
        #expect(try c.nextEvent() == "EVENT STOCK seq=59 banana=882")
        #expect(try c.nextEvent() == "EVENT STOCK seq=60 banana=880")
        #expect(try c.command("SINCE 60") == "OK SINCE 60 60")
        #expect(try c.command("SINCE 61") == "OK SINCE 61 60")  // ahead: another store
        #expect(try c.nextEvent() == "EVENT STOCK seq=60 strawberry=1000 banana=880 pineapple=1000 kiwi=1000 mango=1000")
        #expect(eventually { server.log().contains("compacted the journal") })
        #expect(server.terminate() == 0)
        #expect(FileManager.default.fileExists(atPath: dir + "/snapshot"))

        // After a restart the history only reaches back to the last compaction.
        server = try ExecutableServer(["--data", dir, "--journal-max-bytes", "2048"])
        c = try server.client()
        #expect(try c.command("STOCK banana") == "OK STOCK seq=60 banana=880")
        #expect(try c.command("SINCE 0") == "OK SINCE 0 60")
        #expect(try c.nextEvent() == "EVENT STOCK seq=60 strawberry=1000 banana=880 pineapple=1000 kiwi=1000 mango=1000")
        #expect(server.terminate() == 0)
    }

    /// A display resuming with SINCE while cashiers keep ordering sees every seq once, in order.
    @Test func sinceDuringLiveTrafficHasNoGapAndNoDuplicate() throws {
        let directory = TemporaryDirectory(), dir = directory.path
        let server = try ExecutableServer(["--data", dir, "--initial-stock", "100000"])
        let cashier = try server.client()
        #expect(try cashier.command("EVENTS OFF") == "OK EVENTS off")
        for _ in 0..<20 { #expect(try cashier.command("ORDER banana").hasPrefix("OK ORDER")) }
        let total = 220
        let ordered = DispatchSemaphore(value: 0)
        let replies = Locked<[String]>([])
        Thread {
            for _ in 0..<(total - 20) {
                let reply = (try? cashier.command("ORDER banana")) ?? "<no reply>"
                replies.update { $0.append(reply) }
            }
            ordered.signal()
        }.start()
        let display = try server.client()
        try display.send("SINCE 10")
        // Events before the OK SINCE may repeat; after it, exactly seq 11, 12, ... with no gap.
        var line = try display.readLine()
        while !line.hasPrefix("OK SINCE") { line = try display.readLine() }
        var expected = 11
        while expected <= total {
            let event = try display.readLine()
            #expect(event.hasPrefix("EVENT STOCK"))
            #expect(values(event)["seq"] == expected, "\(event)")
            expected += 1
        }
        ordered.wait()
        // Every order was taken, in turn: the display's seqs are this cashier's changes.
        let seqs = replies.get.map { $0.hasPrefix("OK ORDER banana 1 seq=") ? values($0)["seq"] ?? -1 : -1 }
        #expect(seqs == Array(21...total), "replies: \(replies.get.filter { !$0.hasPrefix("OK ORDER banana 1 seq=") }.prefix(3))")
        #expect(try cashier.command("PING") == "OK PONG")
        #expect(server.terminate() == 0)
    }

    @Test func aSecondServerCannotOpenTheSameDataDirectory() throws {
        let directory = TemporaryDirectory(), dir = directory.path
        let first = try ExecutableServer(["--data", dir])
        let (status, output) = try ExecutableServer.run(["--data", dir, "--port", "0"])
        #expect(status != 0 && output.contains("in use"))
        #expect(first.terminate() == 0)
    }


    /// A data directory's journal after `orders` banana orders and a clean stop: its path and bytes.
    private func journalAfter(bananaOrders orders: Int, in dir: String) throws -> (path: String, bytes: [UInt8]) {
        let server = try ExecutableServer(["--data", dir])
        let c = try server.client()
        for _ in 0..<orders { #expect(try c.command("ORDER banana").hasPrefix("OK ORDER")) }
        #expect(server.terminate() == 0)
        let path = dir + "/journal"
        return (path, [UInt8](FileManager.default.contents(atPath: path)!))
    }
}

/// Replies acknowledged by any cashier, by seq.
final class Acknowledged: @unchecked Sendable {
    private let lock = NSLock()
    private var replies: [Int: String] = [:]

    func add(seq: Int, reply: String) {
        lock.lock()
        replies[seq] = reply
        lock.unlock()
    }

    var all: [Int: String] {
        lock.lock()
        defer { lock.unlock() }
        return replies
    }
}

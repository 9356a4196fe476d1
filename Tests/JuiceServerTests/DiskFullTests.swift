import Foundation
import Glibc
import JuiceDomain
import JuiceStorage
import Testing

/// A full disk makes the store read-only, not dead (PROTOCOL.md, "Full disk"): on a real tmpfs
/// filled by another file (`SmallDisk`), against the real executable. Changes are refused with
/// `ERR READ_ONLY` before they are applied, everything else goes on, and it recovers by itself
/// once the filler is deleted. Mounting needs root (CI runs as root): elsewhere these report
/// themselves skipped, with the reason.
@Suite(.serialized, .onOwnThreads) struct DiskFullTests {
    static let reason = "disk full: cannot grow the journal (No space left on device)"
    static let stock = 1_000_000_000

    @Test("a disk that fills while running: READ_ONLY, nothing taken, reads go on; it recovers alone, and a restart shows only what was acknowledged",
          .requires(.tmpfsMount))
    func fillsWhileRunning() throws {
        let disk = try SmallDisk(megabytes: 16)
        let data = disk.path + "/data"
        // Room for every key it sends: the disk, not its share of the key memory, must stop it.
        var server = try ExecutableServer(["--data", data, "--initial-stock", String(Self.stock),
                                           "--key-memory", "1000000", "--keys-per-address", "1000000"])
        let cashier = try server.client()
        #expect(try cashier.command("EVENTS OFF") == "OK EVENTS off")
        try disk.fill()

        // Keyed orders (long keys: bigger records) until the journal needs to grow and cannot.
        // Every order before the first refusal is applied, none after it.
        var served = 0, lastSeq = 0
        var refusal: String?
        let pad = String(repeating: "x", count: 40)
        for batch in 0..<400 where refusal == nil {
            try cashier.sendRaw(Array((0..<500).map { "ORDER banana key=\(pad)-\(batch)-\($0)\r\n" }.joined().utf8))
            for _ in 0..<500 {
                let reply = try cashier.reply()
                if reply.hasPrefix("OK ORDER banana 1 seq=") {
                    try #require(refusal == nil, "applied after a refusal: \(reply)")
                    served += 1
                    lastSeq = try #require(values(reply)["seq"])
                } else {
                    try #require(reply.hasPrefix("ERR READ_ONLY "), "unexpected reply \(reply)")
                    refusal = refusal ?? reply
                }
            }
        }
        #expect(refusal == "ERR READ_ONLY " + Self.reason)
        #expect(served == lastSeq && served > 0)

        // Every change is refused, and takes nothing; a keyed order is not remembered.
        #expect(try cashier.command("ORDER banana key=till-1") == "ERR READ_ONLY " + Self.reason)
        #expect(try cashier.command("RESTOCK banana 5") == "ERR READ_ONLY " + Self.reason)
        #expect(try cashier.command("SET kiwi 3") == "ERR READ_ONLY " + Self.reason)
        let bananas = Self.stock - 2 * served
        #expect(try cashier.command("STOCK banana") == "OK STOCK seq=\(lastSeq) banana=\(bananas)")
        #expect(try cashier.command("MENU").hasPrefix("OK MENU "))
        let stats = values(try cashier.command("STATS"))
        #expect(stats["orders_served"] == served && stats["orders_refused"] == 0 && stats["seq"] == lastSeq)
        // A display catches up as always.
        let display = try server.client()
        #expect(try display.command("SINCE \(lastSeq - 1)") == "OK SINCE \(lastSeq - 1) \(lastSeq)")
        #expect(try display.nextEvent() == "EVENT STOCK seq=\(lastSeq) banana=\(bananas)")

        // The HTTP side serves; the probe and the metrics say read-only.
        let http = server.httpPort
        let health = try HTTPClient.get(port: http, "/healthz")
        #expect(health.status == 503 && health.text.contains("read-only: " + Self.reason), "\(health.text)")
        let state = try HTTPClient.get(port: http, "/state").json()
        #expect(state["read_only"] as? String == Self.reason && state["seq"] as? Int == lastSeq)
        #expect(try HTTPClient.get(port: http, "/metrics").text.contains("\njuice_read_only 1\n"))
        #expect(try HTTPClient.get(port: http, "/sales").status == 200)
        #expect(try HTTPClient.get(port: http, "/").status == 200)
        #expect(try HTTPClient.get(port: http, "/dashboard").status == 200)
        let stream = try EventStreamClient(port: http)
        #expect(try stream.event().stock().seq == UInt64(lastSeq))
        // One log line for going read-only, however many changes were refused.
        #expect(server.logCount("read-only: " + Self.reason, atLeast: 1) == 1, "\(server.log())")

        // Room again: changes are taken without a restart; the refused key is applied once.
        disk.free()
        let retried = Self.onceWritable(cashier, "ORDER banana key=till-1")
        #expect(retried == "OK ORDER banana 1 seq=\(lastSeq + 1) banana=\(bananas - 2) amount=4000")
        #expect(try cashier.command("ORDER banana key=till-1") == retried + " dup")
        #expect(try HTTPClient.get(port: http, "/healthz").status == 200)
        #expect(try HTTPClient.get(port: http, "/metrics").text.contains("\njuice_read_only 0\n"))
        #expect(try HTTPClient.get(port: http, "/state").json()["read_only"] is NSNull)
        #expect(server.logCount("writable again", atLeast: 1) == 1, "\(server.log())")

        // After a restart: everything acknowledged, nothing refused (no stock, seq or sale).
        #expect(server.terminate() == 0)
        server = try ExecutableServer(["--data", data])
        defer { server.stop() }
        let after = try server.client()
        #expect(try after.command("STOCK banana") == "OK STOCK seq=\(lastSeq + 1) banana=\(bananas - 2)")
        #expect(try after.command("STOCK kiwi") == "OK STOCK seq=\(lastSeq + 1) kiwi=\(Self.stock)")
        let restarted = values(try after.command("STATS"))
        #expect(restarted["orders_served"] == served + 1 && restarted["orders_refused"] == 0)
        #expect(restarted["sold_banana"] == served + 1)
        #expect(try after.command("ORDER banana key=till-1") == retried + " dup")
    }

    @Test("started on a full disk it serves read-only, writes nothing (menu.json untouched), and recovers alone",
          .requires(.tmpfsMount))
    func startsOnAFullDisk() throws {
        let disk = try SmallDisk(megabytes: 16)
        let data = disk.path + "/data"
        var server = try ExecutableServer(["--data", data])
        #expect(try server.client().command("ORDER banana key=a") == "OK ORDER banana 1 seq=1 banana=8 amount=4000")
        #expect(server.terminate() == 0)
        let menuBefore = try Self.fileIdentity(data + "/menu.json")
        try disk.fill()

        server = try ExecutableServer(["--data", data])
        defer { server.stop() }
        #expect(server.logShows("read-only: " + Self.reason), "\(server.log())")
        let c = try server.client()
        #expect(try c.command("ORDER banana") == "ERR READ_ONLY " + Self.reason)
        // A retry of an order the store already holds changes nothing: it gets its reply.
        #expect(try c.command("ORDER banana key=a") == "OK ORDER banana 1 seq=1 banana=8 amount=4000 dup")
        #expect(try c.command("STOCK banana") == "OK STOCK seq=1 banana=8")
        #expect(try HTTPClient.get(port: server.httpPort, "/healthz").status == 503)
        #expect(try HTTPClient.get(port: server.httpPort, "/state").json()["read_only"] as? String == Self.reason)
        #expect(try Self.fileIdentity(data + "/menu.json") == menuBefore, "menu.json was rewritten")

        disk.free()
        #expect(Self.onceWritable(c, "ORDER banana") == "OK ORDER banana 1 seq=2 banana=6 amount=4000")
        #expect(try HTTPClient.get(port: server.httpPort, "/healthz").status == 200)
    }

    @Test("a compaction that finds no room is skipped, and the server goes on; it compacts once there is room",
          .requires(.tmpfsMount))
    func compactionWithoutRoomIsSkipped() throws {
        let disk = try SmallDisk(megabytes: 16)
        let data = disk.path + "/data"
        let server = try ExecutableServer(["--data", data, "--journal-max-bytes", "1024"])
        defer { server.stop() }
        let c = try server.client()
        try disk.fill()
        // Past 1 KiB of journal each durable write would compact; the snapshot finds no room. The
        // journal's preallocated room still takes the orders.
        for i in 1...40 {
            #expect(try c.command("SET kiwi \(i)") == "OK SET seq=\(i) kiwi=\(i)")
        }
        #expect(server.isRunning)
        #expect(server.logCount("compaction skipped", atLeast: 1) == 1, "\(server.log())")
        #expect(!server.log().contains("compacted the journal"))
        disk.free()
        // Retried no sooner than 5 s after the last failure, at the next durable write.
        #expect(eventually {
            _ = try? c.command("SET kiwi 7")
            return server.log().contains("compacted the journal")
        })
        #expect(server.terminate() == 0)
        let restarted = try ExecutableServer(["--data", data])
        defer { restarted.stop() }
        #expect(try restarted.client().command("STOCK kiwi").hasSuffix(" kiwi=7"))
    }

    /// A compaction's new journal (`JournalFile.rotate`) needs a little room of its own: without
    /// it the compaction is skipped as for a snapshot without room (`GroupCommit.compact`). Here
    /// the file itself: the half-made `journal.next` is removed, the old journal stays in use,
    /// whole, and takes records in its preallocated room; with room again it is replaced.
    @Test("a new journal that finds no room: journal.next removed, the old journal kept in use; with room it is replaced",
          .requires(.tmpfsMount))
    func rotationWithoutRoomKeepsTheOldJournal() throws {
        let disk = try SmallDisk(megabytes: 16)
        let path = disk.path + "/journal", next = path + ".next"
        func record(_ lsn: UInt64) -> [UInt8] { JournalRecord.set(lsn: lsn, seq: lsn, fruit: "banana", value: Int(lsn)).framed() }
        func records() -> [JournalRecord] {
            RecordReader.read(FileManager.default.contents(atPath: path).map { [UInt8]($0) } ?? []).records.map(\.record)
        }
        let file = try JournalFile(path: path, directory: disk.path, validLength: 0)
        try file.grow(leaving: JournalFile.chunk)
        try file.append(record(1) + record(2), lastRecord: record(1).count)
        try file.sync()
        let inode = try Self.fileIdentity(path)[0]
        try disk.fill()

        var failure: StorageError?
        do { _ = try file.rotate() } catch { failure = error }
        #expect(failure?.isOutOfRoom == true, "\(String(describing: failure))")
        #expect(!FileManager.default.fileExists(atPath: next))
        #expect(try Self.fileIdentity(path)[0] == inode)
        try file.append(record(3), lastRecord: 0)
        try file.sync()
        #expect(records() == [1, 2, 3].map { JournalRecord.set(lsn: $0, seq: $0, fruit: "banana", value: Int($0)) })

        disk.free()
        #expect(try file.rotate())
        try file.append(record(4), lastRecord: 0)
        try file.sync()
        #expect(try Self.fileIdentity(path)[0] != inode && !FileManager.default.fileExists(atPath: next))
        #expect(records() == [3, 4].map { JournalRecord.set(lsn: $0, seq: $0, fruit: "banana", value: Int($0)) })
    }

    /// Sends `command` until it is not refused READ_ONLY (the server retries growing every
    /// second), and returns that reply; a refusal if it never came within the test deadline.
    static func onceWritable(_ client: LineClient, _ command: String) -> String {
        var reply = ""
        let writable = eventually {
            reply = (try? client.command(command)) ?? ""
            return !reply.hasPrefix("ERR READ_ONLY")
        }
        #expect(writable, "still read-only after room was freed")
        return reply
    }

    /// Inode, size and modification time: a file rewritten in place or replaced differs.
    static func fileIdentity(_ path: String) throws -> [Int] {
        var s = stat()
        guard stat(path, &s) == 0 else { throw TestError("cannot stat \(path): errno \(errno)") }
        return [Int(s.st_ino), Int(s.st_size), Int(s.st_mtim.tv_sec), Int(s.st_mtim.tv_nsec)]
    }
}

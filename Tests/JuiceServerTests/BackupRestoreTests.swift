import Foundation
import JuiceCore
import JuiceDomain
import JuiceStorage
import JuiceTestSupport
import Testing

/// `juice-server verify` and `juice-server restore`, run as a person runs them, on a backup of
/// a store a real server wrote: the restored store starts, holds the same state, and answers a
/// retried key `dup`; a damaged backup or a directory with data is refused and left as it was.
@Suite(.onOwnThreads) struct BackupRestoreTests {
    /// A backup of the (stopped) store in `directory`, made from its files as `GET /backup` makes
    /// one from the running store: its snapshot at the last journal position.
    static func backup(of directory: String) throws -> [UInt8] {
        let (recovered, calendar) = try Self.recover(directory)
        return BackupFile.encode(snapshot: Snapshot.encode(recovered.ledger, lsn: recovered.lsn), menu: .standard,
                                 calendar: calendar, takenAt: WallClock.unixSeconds())
    }

    /// The (stopped) store in `directory`, recovered from its files as a server starting on it would.
    static func recover(_ directory: String) throws -> (Recovery, BusinessCalendar) {
        func file(_ name: String) -> Recovery.File? {
            FileManager.default.contents(atPath: directory + "/" + name).map { Recovery.File(path: name, bytes: [UInt8]($0)) }
        }
        let calendar = Storage.parseCalendar(readText(directory + "/" + Storage.calendarName)) ?? BusinessCalendar()
        return (try Recovery.recover(StockLedger(menu: .standard, calendar: calendar),
                                     snapshot: file(Storage.snapshotName), journal: file(Storage.journalName)), calendar)
    }

    /// A store with three keyed changes, stopped; its STOCK line.
    static func storeWithData(_ directory: String) throws -> String {
        let server = try ExecutableServer(["--data", directory, "--no-http"])
        let c = try server.client()
        #expect(try c.command("ORDER banana key=k1").hasPrefix("OK ORDER banana 1 seq=1"))
        #expect(try c.command("ORDER banana key=k2").hasPrefix("OK ORDER banana 1 seq=2"))
        #expect(try c.command("RESTOCK kiwi 5 key=k3") == "OK RESTOCK seq=3 kiwi=15")
        let stock = try c.command("STOCK")
        #expect(server.terminate() == 0)
        return stock
    }

    /// A stopped store with data in `<dir>/shop`: the directory, the store's path, its STOCK line.
    static func shop() throws -> (dir: TemporaryDirectory, shop: String, stock: String) {
        let dir = TemporaryDirectory("juice-backup")
        let shop = dir.path + "/shop"
        return (dir, shop, try storeWithData(shop))
    }

    static func files(_ directory: String) -> [String: Data] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        return Dictionary(uniqueKeysWithValues: names.map { ($0, FileManager.default.contents(atPath: directory + "/" + $0) ?? Data()) })
    }

    static func run(_ arguments: [String]) throws -> (Int32, String) { try ExecutableServer.run(arguments) }

    @Test("verify prints what a backup holds; restore makes a store that starts with it and answers a retried key dup")
    func restoreStarts() throws {
        let (dir, shop, stock) = try Self.shop()
        let file = dir.path + "/juice.backup"
        #expect(FileManager.default.createFile(atPath: file, contents: Data(try Self.backup(of: shop))))

        let (status, output) = try Self.run(["verify", file])
        #expect(status == 0, "\(output)")
        #expect(output.contains("backup \(file) is whole") && output.contains("seq:          3") && output.contains("keys:         3"))

        let (restored, said) = try Self.run(["restore", file, "--data", dir.path + "/new"])
        #expect(restored == 0, "\(said)")
        #expect(said.contains("restored \(file) into \(dir.path)/new") && said.contains("seq:          3"))
        let server = try ExecutableServer(["--data", dir.path + "/new", "--no-http"])
        let c = try server.client()
        #expect(try c.command("STOCK") == stock)
        #expect(try c.command("ORDER banana key=k2").hasPrefix("OK ORDER banana 1 seq=2 ") && (try c.command("ORDER banana key=k2")).hasSuffix(" dup"))
        #expect(try c.command("ORDER banana key=k4").hasPrefix("OK ORDER banana 1 seq=4 "))
        #expect(server.terminate() == 0)
    }

    @Test("restore refuses a directory holding a store with data, unless --force, which keeps its files aside")
    func refusesData() throws {
        let (dir, shop, _) = try Self.shop()
        let file = dir.path + "/juice.backup"
        #expect(FileManager.default.createFile(atPath: file, contents: Data(try Self.backup(of: shop))))
        let before = Self.files(shop)
        let (status, output) = try Self.run(["restore", file, "--data", shop])
        #expect(status == 1 && output.contains("already holds a store with data (3 journal records)") && output.contains("--force"), "\(output)")
        #expect(Self.files(shop) == before)

        let (forced, said) = try Self.run(["restore", file, "--data", shop, "--force"])
        #expect(forced == 0, "\(said)")
        let after = Self.files(shop)
        let aside = after.keys.filter { $0.hasPrefix("journal.before-restore-") }
        #expect(aside.count == 1 && after[aside[0]] == before["journal"])
        #expect(after.keys.contains { $0.hasPrefix("snapshot.before-restore-") })
        #expect(after["journal"]?.isEmpty == true && !after.keys.contains("store-id"))
        // Forced again at once (the same second, likely): the files set aside first stay.
        #expect(try Self.run(["restore", file, "--data", shop, "--force"]).0 == 0)
        let again = Self.files(shop)
        #expect(again[aside[0]] == before["journal"] && again.keys.filter { $0.hasPrefix("journal.before-restore-") }.count == 2)
    }

    /// Judged by what it holds, not by its seq: a store at seq 0 may still hold the hours'
    /// history, the keys and the tills, and that is refused unless --force. A new store's files
    /// (the new box's first start made them), or any one of them alone, hold nothing: restored
    /// over without --force, each set aside.
    @Test("restore refuses a store holding history and keys at seq 0 unless --force; a new store's files it sets aside unasked")
    func judgesWhatTheStoreHolds() throws {
        let (dir, shop, _) = try Self.shop()
        let file = dir.path + "/juice.backup"
        #expect(FileManager.default.createFile(atPath: file, contents: Data(try Self.backup(of: shop))))
        // A snapshot at seq 0 and journal position 0, with no counters, that holds the history
        // and the keys all the same.
        let (recovered, _) = try Self.recover(shop)
        var records = RecordReader.read(Snapshot.encode(recovered.ledger, lsn: 0)).records.map(\.record)
        records[0] = .header(lsn: 0, seq: 0, served: 0, refused: 0)
        for i in records.indices {
            switch records[i] {
            case .sold(let juice, _): records[i] = .sold(juice: juice, count: 0)
            case .lost(let juice, _): records[i] = .lost(juice: juice, count: 0)
            case .short(let fruit, _): records[i] = .short(fruit: fruit, count: 0)
            default: break
            }
        }
        var snapshot: [UInt8] = [], scratch: [UInt8] = []
        for record in records { record.appendFramed(to: &snapshot, scratch: &scratch) }
        let hours = records.filter { if case .hour = $0 { true } else { false } }.count
        let keys = records.filter { if case .scopedKey = $0 { true } else { false } }.count
        #expect(hours > 0 && keys == 3)
        let history = dir.path + "/history"
        try FileManager.default.createDirectory(atPath: history, withIntermediateDirectories: true)
        #expect(FileManager.default.createFile(atPath: history + "/snapshot", contents: Data(snapshot)))
        let before = Self.files(history)
        let (status, output) = try Self.run(["restore", file, "--data", history])
        let hoursHeld = hours == 1 ? "1 hour of history" : "\(hours) hours of history"
        #expect(status == 1 && output.contains("\(history) already holds a store with data (a snapshot at seq 0 with \(hoursHeld), 3 keys")
                && output.contains("--force"), "\(output)")
        #expect(Self.files(history).filter { $0.key != "LOCK" } == before.filter { $0.key != "LOCK" })
        let (forced, said) = try Self.run(["restore", file, "--data", history, "--force"])
        #expect(forced == 0 && said.contains("kept the old files aside in \(history)"), "\(said)")

        // A new store's, started once and stopped (the new box's, README steps 1 to 3), and each
        // of its files alone: no data, so restored without --force, and set aside.
        let fresh = dir.path + "/fresh"
        let server = try ExecutableServer(["--data", fresh, "--no-http"])
        #expect(server.terminate() == 0)
        var targets = [fresh]
        for name in ["journal", "snapshot", "menu.json", "calendar", "store-id"] {
            let one = dir.path + "/only-" + name
            try FileManager.default.createDirectory(atPath: one, withIntermediateDirectories: true)
            try FileManager.default.copyItem(atPath: fresh + "/" + name, toPath: one + "/" + name)
            targets.append(one)
        }
        for target in targets {
            let held = Self.files(target)
            let (restored, said) = try Self.run(["restore", file, "--data", target])
            #expect(restored == 0 && said.contains("kept the old files aside in \(target)"), "\(target): \(said)")
            let aside = Self.files(target).filter { $0.key.contains(".before-restore-") }
            #expect(aside.count == held.filter { $0.key != "LOCK" }.count, "\(target): \(aside.keys.sorted())")
        }
        // Nothing of a store's there (an empty folder, or others' files): restored, theirs kept.
        let other = dir.path + "/other"
        try FileManager.default.createDirectory(atPath: other, withIntermediateDirectories: true)
        #expect(FileManager.default.createFile(atPath: other + "/notes.txt", contents: Data("mine".utf8)))
        #expect(try Self.run(["restore", file, "--data", other]).0 == 0)
        #expect(try Self.run(["restore", file, "--data", dir.path + "/empty"]).0 == 0)
        #expect(readText(other + "/notes.txt") == "mine")
    }

    @Test("a forced restore that runs out of disk halfway leaves the store the directory held, which then starts as before",
          .requires(.tmpfsMount))
    func fullDiskLeavesTheStore() throws {
        let dir = TemporaryDirectory("juice-backup")
        let disk = try SmallDisk(megabytes: 16)
        let shop = disk.path + "/shop"
        let stock = try Self.storeWithData(shop)
        let file = dir.path + "/juice.backup"
        let backup = try Self.backup(of: shop)
        #expect(FileManager.default.createFile(atPath: file, contents: Data(backup)))
        // Room for one page: the new snapshot fits (a tmpfs file takes whole pages), menu.json no longer.
        let pad = disk.path + "/pad"
        #expect(FileManager.default.createFile(atPath: pad, contents: Data(count: 4096)))
        try disk.fill()
        #expect(unlink(pad) == 0)
        let before = Self.files(shop)
        let (status, output) = try Self.run(["restore", file, "--data", shop, "--force"])
        #expect(status == 1 && output.contains("No space left on device"), "\(output)")
        #expect(Self.files(shop) == before, "\(Self.files(shop).keys.sorted())")
        disk.free()
        let server = try ExecutableServer(["--data", shop, "--no-http"])
        #expect(try server.client().command("STOCK") == stock)
        #expect(server.terminate() == 0)
    }

    @Test("a backup with a flipped byte, or cut short, is refused by verify and restore naming the offset; nothing is written")
    func damagedRefused() throws {
        let (dir, shop, _) = try Self.shop()
        let good = try Self.backup(of: shop)
        let starts = BackupFileTests.partStarts(good)
        var flipped = good
        let at = starts[1] + 30  // inside the menu's payload
        flipped[at] ^= 0x01
        let cut = starts[starts.count - 2] + 5
        for (name, bytes, offset, why) in [("flipped", flipped, starts.last { $0 <= at }!, "checksum mismatch"),
                                           ("cut", Array(good.prefix(cut)), starts[starts.count - 2], "cut short")] {
            let file = dir.path + "/\(name).backup"
            #expect(FileManager.default.createFile(atPath: file, contents: Data(bytes)))
            let (status, output) = try Self.run(["verify", file])
            #expect(status == 1 && output.contains("backup \(file) is damaged at offset \(offset) (\(why)"), "\(output)")
            let before = Self.files(shop)
            for target in [shop, dir.path + "/new"] {
                let (restored, said) = try Self.run(["restore", file, "--data", target, "--force"])
                #expect(restored == 1 && said.contains("damaged at offset \(offset)"), "\(said)")
            }
            #expect(Self.files(shop) == before)
            #expect(!FileManager.default.fileExists(atPath: dir.path + "/new"))
        }
    }

    @Test("verify and restore say what is wrong: no such file, a directory, a file where the data folder goes, a newer backup format")
    func sayWhy() throws {
        let dir = TemporaryDirectory("juice-backup")
        let missing = dir.path + "/missing.backup"
        let (status, output) = try Self.run(["verify", missing])
        #expect(status == 1 && output.contains("cannot read \(missing): No such file or directory"), "\(output)")
        let (onDirectory, said) = try Self.run(["verify", dir.path])
        #expect(onDirectory == 1 && said.contains("cannot read \(dir.path): Is a directory"), "\(said)")

        _ = try Self.storeWithData(dir.path + "/shop")
        let file = dir.path + "/juice.backup"
        #expect(FileManager.default.createFile(atPath: file, contents: Data(try Self.backup(of: dir.path + "/shop"))))
        let notAFolder = dir.path + "/a-file"
        #expect(FileManager.default.createFile(atPath: notAFolder, contents: Data("x".utf8)))
        let (restored, why) = try Self.run(["restore", file, "--data", notAFolder])
        #expect(restored == 1 && why.contains("cannot create data directory \(notAFolder)") && !why.contains("NSCocoaErrorDomain")
                && why.contains("nothing was restored"), "\(why)")

        // A backup a newer juice-server made (format 2): said so, not "not a backup".
        let payload = Array("juice-backup 2 1795835832".utf8)
        let crc = String(CRC32.checksum(payload), radix: 16)
        let newer = dir.path + "/newer.backup"
        let framed = Array("\(payload.count) \(String(repeating: "0", count: 8 - crc.count) + crc) ".utf8) + payload + [0x0A]
        #expect(FileManager.default.createFile(atPath: newer, contents: Data(framed)))
        let (verified, told) = try Self.run(["verify", newer])
        #expect(verified == 1 && told.contains("format 2") && told.contains("reads format 1") && !told.contains("not a juice-server backup"), "\(told)")
    }

    @Test("backup, verify and restore refuse a bad command line with their usage (exit 2)")
    func commandLines() throws {
        for arguments in [["verify"], ["verify", "a", "b"], ["verify", "a", "--force"], ["restore", "a"], ["restore", "--data", "d"],
                          ["backup", "a", "b"], ["backup", "--force"], ["backup", "--data", "d"], ["backup", "--server"]] {
            let (status, output) = try Self.run(arguments)
            #expect(status == 2 && output.contains("usage: juice-server backup [FILE | DIR]") && output.contains("juice-server verify FILE"),
                    "\(arguments): \(output)")
        }
    }
}

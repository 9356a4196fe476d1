import Foundation
import JuiceCore
import JuiceDomain
import JuiceStorage
import JuiceTestSupport
import Testing

/// A plain copy of the data folder taken while the server runs (`cp -a`, `rsync`: one file read
/// after the other) is complete, or refused when started, never started short (issue 35;
/// README, Backups, "Copying the folder"). The files are copied in both orders with a compaction
/// in between, for certain: the test copies one file, waits until a compaction has written a new
/// snapshot and started a new journal, then copies the other. Each copy is judged as a start
/// would judge it (`Recovery.recover`), against the highest seq acknowledged before the copy
/// began; a real server is started on one copy of each order.
@Suite(.onOwnThreads) struct FolderCopyTests {
    static let arguments = ["--initial-stock", "1000000", "--journal-max-bytes", "16384", "--no-http"]
    static let files = [Storage.snapshotName, Storage.journalName]
    /// The files that do not change while the server runs, copied once.
    static let fixed = [Storage.menuName, Storage.calendarName, StoreIdentity.fileName]

    /// A copy: each file's bytes, and the highest seq acknowledged before its first file was read.
    struct Copy {
        var files: [String: [UInt8]] = [:]
        var acknowledged: Int
    }

    enum Verdict: Equatable {
        /// It starts, at this seq.
        case starts(seq: Int)
        /// It is refused: a gap in the journal ("records are missing").
        case missing(String)
        /// It is refused for something else (a journal read while it was being rewritten).
        case refused(String)
    }

    static func inode(_ path: String) -> UInt64? {
        var info = stat()
        return stat(path, &info) == 0 ? UInt64(info.st_ino) : nil
    }

    /// Reads a file whole, as `cp` does: one open, reads to the end.
    static func read(_ path: String) -> [UInt8] {
        FileManager.default.contents(atPath: path).map { [UInt8]($0) } ?? []
    }

    /// How a start would judge `copy`, with the calendar and menu the store was written with.
    static func judge(_ copy: Copy) -> Verdict {
        func file(_ name: String) -> Recovery.File? { copy.files[name].map { Recovery.File(path: name, bytes: $0) } }
        let calendar = copy.files[Storage.calendarName].flatMap { Storage.parseCalendar(String(decoding: $0, as: UTF8.self)) } ?? BusinessCalendar()
        do {
            let recovered = try Recovery.recover(StockLedger(menu: .standard, initialStock: 1_000_000, calendar: calendar),
                                                 snapshot: file(Storage.snapshotName), journal: file(Storage.journalName))
            return .starts(seq: Int(recovered.ledger.seq))
        } catch {
            let text = "\(error)"
            if case .corrupt(.journal, _, _, let reason) = error, reason.hasSuffix("records are missing") { return .missing(text) }
            return .refused(text)
        }
    }

    /// Writes `copy` out as a data folder.
    static func write(_ copy: Copy, to directory: String) throws {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        for (name, bytes) in copy.files {
            #expect(FileManager.default.createFile(atPath: directory + "/" + name, contents: Data(bytes)))
        }
    }

    /// A store whose compactions are counted: the log's "compacted the journal" lines.
    final class Shop: @unchecked Sendable {
        let dir: String
        let server: ExecutableServer
        init(_ dir: String) throws {
            self.dir = dir
            server = try ExecutableServer(["--data", dir] + FolderCopyTests.arguments)
        }
        var compactions: Int { server.log().components(separatedBy: "compacted the journal").count - 1 }
        var snapshotInode: UInt64? { FolderCopyTests.inode(dir + "/" + Storage.snapshotName) }

        /// Waits (up to the deadline) until a compaction after `inode` and `count` has finished:
        /// a new snapshot is in place and the journal was started afresh (the log line comes
        /// after both).
        func compactionFinished(after inode: UInt64?, count: Int) -> Bool {
            eventually { snapshotInode != inode && compactions > count }
        }

        /// Copies `first`, waits until a compaction finished, then copies the other file.
        func copy(first: String, acknowledged: Int) -> Copy {
            var copy = Copy(acknowledged: acknowledged)
            let inode = snapshotInode, count = compactions
            copy.files[first] = FolderCopyTests.read(dir + "/" + first)
            #expect(compactionFinished(after: inode, count: count), "no compaction after \(first) was copied")
            for name in FolderCopyTests.files where name != first { copy.files[name] = FolderCopyTests.read(dir + "/" + name) }
            for name in FolderCopyTests.fixed { copy.files[name] = FolderCopyTests.read(dir + "/" + name) }
            return copy
        }
    }

    static func seq(_ reply: String) -> Int? { values(reply)["seq"] }

    /// The journal's bytes up to its first zero (its records: the rest is preallocated).
    static func journalUsed(_ dir: String) -> Int {
        let bytes = read(dir + "/" + Storage.journalName)
        return bytes.firstIndex(of: 0) ?? bytes.count
    }

    @Test("copies taken during compactions: journal first is complete; snapshot first is complete or refused naming the journal, never short")
    func copiesDuringCompactions() throws {
        let dir = TemporaryDirectory("juice-copy")
        let shop = try Shop(dir.path + "/shop")
        let acknowledged = Locked(0)
        let stop = Locked(false)
        let done = DispatchGroup()
        for w in 0..<2 {
            let client = try shop.server.client()
            done.enter()
            let thread = Thread {
                var n = 0
                while !stop.get {
                    n += 1
                    guard let reply = try? client.command("ORDER banana key=w\(w)-\(n)"), let seq = FolderCopyTests.seq(reply) else { break }
                    acknowledged.update { $0 = max($0, seq) }
                }
                done.leave()
            }
            thread.start()
        }
        var copies: [(first: String, copy: Copy)] = []
        for round in 0..<8 {
            let first = Self.files[round % 2 == 0 ? 1 : 0]  // journal first, then snapshot first, in turn
            #expect(eventually { acknowledged.get > 0 })
            copies.append((first, shop.copy(first: first, acknowledged: acknowledged.get)))
        }
        stop.update { $0 = true }
        done.wait()

        var firsts: [String: Copy] = [:]
        var summary: [String] = []
        for (first, copy) in copies {
            let verdict = Self.judge(copy)
            summary.append("\(first) first: \(verdict)")
            switch verdict {
            case .starts(let seq):
                #expect(seq >= copy.acknowledged, "\(first) first started short: seq \(seq) < \(copy.acknowledged) acknowledged before the copy")
            case .missing(let why):
                #expect(first == Storage.snapshotName, "a journal-first copy was refused: \(why)")
                #expect(why.contains("journal " + Storage.journalName))
            case .refused(let why):
                Issue.record("\(first) first refused: \(why)")
            }
            firsts[first] = firsts[first] ?? copy
        }
        print("FolderCopyTests: " + summary.joined(separator: "; "))

        // A real server on one copy of each order starts complete, or refuses naming the journal.
        for (first, copy) in firsts {
            let path = dir.path + "/copy-" + first
            try Self.write(copy, to: path)
            switch Self.judge(copy) {
            case .starts:
                let server = try ExecutableServer(["--data", path] + Self.arguments)
                let stock = try server.client().command("STOCK banana")
                let seq = try #require(Self.seq(stock), "\(stock)")
                #expect(seq >= copy.acknowledged, "\(first) first: \(stock), \(copy.acknowledged) acknowledged before the copy")
                #expect(server.terminate() == 0)
            case .missing, .refused:
                let (status, output) = try ExecutableServer.run(["--data", path, "--port", "0"] + Self.arguments)
                #expect(status == 1, "\(output)")
                #expect(output.contains("journal \(path)/journal is corrupt") && output.contains("records are missing"), "\(output)")
            }
        }
        #expect(shop.server.terminate() == 0)
    }

    @Test("a quiet shop: snapshot copied, a compaction, no write after it, journal copied: refused, not started short")
    func quietShopSnapshotFirst() throws {
        let dir = TemporaryDirectory("juice-copy")
        let shop = try Shop(dir.path + "/shop")
        let till = try shop.server.client()
        var n = 0
        var acknowledged = 0
        func order() throws {
            n += 1
            let reply = try till.command("ORDER banana key=q\(n)")
            acknowledged = try #require(Self.seq(reply), "\(reply)")
        }
        // One compaction, then a few changes in the journal after its snapshot.
        let start = shop.snapshotInode
        while shop.snapshotInode == start { try order() }
        #expect(shop.compactionFinished(after: start, count: 0))
        for _ in 0..<5 { try order() }

        // The copy begins: the snapshot, then orders until one starts a compaction, then none
        // (the shop is quiet), then the journal.
        var copy = Copy(acknowledged: acknowledged)
        copy.files[Storage.snapshotName] = Self.read(shop.dir + "/" + Storage.snapshotName)
        let inode = shop.snapshotInode, count = shop.compactions
        // Quickly while one more record cannot take the journal to --journal-max-bytes; then
        // each order waits a moment for the compaction it may have started, so that no order
        // follows that one (its record is written before the compaction starts; a later one
        // would land in the new journal, and any copy would be refused, with or without a fix).
        let recordBytes = 200  // more than any one record here (about 90 bytes)
        while Self.journalUsed(shop.dir) < 16384 - recordBytes { try order() }
        while shop.snapshotInode == inode {
            try order()
            _ = eventually(timeout: 1) { shop.snapshotInode != inode }
        }
        #expect(shop.compactionFinished(after: inode, count: count))
        copy.files[Storage.journalName] = Self.read(shop.dir + "/" + Storage.journalName)
        for name in Self.fixed { copy.files[name] = Self.read(shop.dir + "/" + name) }
        #expect(shop.server.terminate() == 0)

        let verdict = Self.judge(copy)
        guard case .missing = verdict else {
            Issue.record("a snapshot-first copy across a compaction in a quiet shop: \(verdict), \(acknowledged) acknowledged before the copy")
            return
        }
        let path = dir.path + "/copy"
        try Self.write(copy, to: path)
        let (status, output) = try ExecutableServer.run(["--data", path, "--port", "0"] + Self.arguments)
        #expect(status == 1, "\(output)")
        #expect(output.contains("journal \(path)/journal is corrupt") && output.contains("records are missing"), "\(output)")
    }
}

import Foundation
import JuiceTestSupport
import Testing

/// `juice-server restore` (and `verify`) on files that are not plain files: a FIFO given as the
/// backup, and data files that are a directory, a FIFO or a dangling symlink. None may hang it
/// (a restore runs with SIGINT and SIGTERM blocked: only SIGKILL would end it), none may be taken
/// for "no store here" (that skipped the refusal without --force), and none may be followed out
/// of the directory.
@Suite(.onOwnThreads) struct RestoreOddFilesTests {
    @Test("a FIFO given as the backup is refused at once by verify and restore, never waited on")
    func fifoBackupRefused() throws {
        let dir = TemporaryDirectory("juice-restore-odd")
        let fifo = dir.path + "/juice.backup"
        try #require(mkfifo(fifo, 0o600) == 0, "mkfifo failed: errno \(errno)")
        let binary = ExecutableServer.binary
        for arguments in [["verify", fifo], ["restore", fifo, "--data", dir.path + "/shop"]] {
            // Before: open(2) waited for a writer that never came; restore ignored SIGTERM too.
            let (status, output) = try ChildProcess.run(binary, arguments, timeout: 10)
            #expect(status == 1 && output.contains("cannot read \(fifo)") && output.contains("nothing was restored") == (arguments[0] == "restore"),
                    "\(arguments[0]): \(status) \(output)")
        }
        #expect(!FileManager.default.fileExists(atPath: dir.path + "/shop/snapshot"))
    }

    @Test("data files that cannot be read (a directory, a FIFO, a dangling symlink) are refused without --force, set aside with it, never followed")
    func unreadableDataFilesAreData() throws {
        let (dir, shop, _) = try BackupRestoreTests.shop()
        let file = dir.path + "/juice.backup"
        #expect(FileManager.default.createFile(atPath: file, contents: Data(try BackupRestoreTests.backup(of: shop))))
        let outside = dir.path + "/outside-journal"
        let cases: [(name: String, make: (String) -> Bool, said: String)] = [
            ("snapshot", { mkdir($0 + "/snapshot", 0o755) == 0 }, "a snapshot that cannot be read: a directory"),
            ("journal", { mkfifo($0 + "/journal", 0o600) == 0 }, "a journal that cannot be read: not a plain file"),
            // A journal on a disk that is not mounted, say: nobody can tell what it holds.
            ("journal", { symlink(outside, $0 + "/journal") == 0 }, "a journal that cannot be read: No such file or directory"),
        ]
        for (index, (name, make, said)) in cases.enumerated() {
            let target = dir.path + "/odd-\(index)"
            try FileManager.default.createDirectory(atPath: target, withIntermediateDirectories: true)
            #expect(make(target))
            // Before: judged absent, so restored over without --force.
            let (status, output) = try BackupRestoreTests.run(["restore", file, "--data", target])
            #expect(status == 1 && output.contains("already holds a store with data (\(said))") && output.contains("--force"),
                    "\(target): \(output)")
            #expect(!FileManager.default.fileExists(atPath: target + "/menu.json"))
            let (forced, told) = try BackupRestoreTests.run(["restore", file, "--data", target, "--force"])
            #expect(forced == 0 && told.contains("kept the old files aside in \(target): \(name).before-restore-"), "\(target): \(told)")
            // The odd file itself set aside (a link as a link); a plain new one in its place.
            let aside = BackupRestoreTests.files(target).keys.filter { $0.hasPrefix(name + ".before-restore-") }
            #expect(aside.count == 1, "\(target): \(BackupRestoreTests.files(target).keys.sorted())")
            var info = stat()
            #expect(lstat(target + "/" + name, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG, "\(target)/\(name)")
        }
        // Before: `fileExists` followed the dangling link, so it was neither set aside nor
        // replaced, and the new journal was created where it pointed, outside the directory.
        #expect(!FileManager.default.fileExists(atPath: outside))
        let (status, output) = try BackupRestoreTests.run(["verify", file])
        #expect(status == 0, "\(output)")
    }
}

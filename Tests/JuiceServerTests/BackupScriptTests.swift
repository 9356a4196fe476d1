import Foundation
import JuiceTestSupport
import Testing

/// deploy/juice-backup.sh, the nightly job, run as its service runs it: against a real server,
/// with its settings in the environment (as /etc/juice-server/backup.env gives them).
@Suite(.onOwnThreads) struct BackupScriptTests {
    static let script = DeployTests.root + "/deploy/juice-backup.sh"

    static func settings(_ dir: String, server: Int, keep: Int = 2, copyTo: String? = nil) -> [String: String] {
        var env = ["JUICE_BACKUP_DIR": dir + "/backups", "JUICE_BACKUP_KEEP": String(keep), "JUICE_BACKUP_SERVER": "127.0.0.1:\(server)",
                   "JUICE_BACKUP_TOKEN_FILE": BackupCommandTests.tokenFile(dir), "JUICE_SERVER_BIN": ExecutableServer.binary]
        if let copyTo { env["JUICE_BACKUP_COPY_TO"] = copyTo }
        return env
    }

    static func names(_ dir: String) -> [String] { ((try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? []).sorted() }

    /// The one backup in `dir` whose name is not one a test put there (2026-01: the old ones).
    static func tonight(_ dir: String) -> [String] { names(dir).filter { $0.hasPrefix("juice-") && $0.hasSuffix(".backup") && !$0.hasPrefix("juice-2026-01") } }

    /// Files named `names` in `dir` (made first), holding something that is not a backup.
    static func put(_ names: [String], in dir: String) throws {
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        for name in names { #expect(FileManager.default.createFile(atPath: dir + "/" + name, contents: Data("old".utf8))) }
    }

    /// `scp` and `ssh` stand-ins in `dir`/bin that append what they were asked to `dir`/said;
    /// `scpStatus`: what scp exits with; ssh exits 255 (SSH's own failure) when asked for `failing`.
    static func standIns(_ dir: String, scpStatus: Int = 0, sshFailing: String = "no such command") throws -> (path: String, said: String) {
        let bin = dir + "/bin", said = dir + "/said"
        try FileManager.default.createDirectory(atPath: bin, withIntermediateDirectories: true)
        let scripts = ["scp": "echo \"scp $*\" >> \(said)\nexit \(scpStatus)\n",
                       "ssh": "echo \"ssh $*\" >> \(said)\ncase \"$*\" in *\" \(sshFailing) \"*) exit 255 ;; esac\n"]
        for (tool, body) in scripts {
            unlink(bin + "/" + tool)
            #expect(FileManager.default.createFile(atPath: bin + "/" + tool, contents: Data(("#!/bin/sh\n" + body).utf8),
                                                   attributes: [.posixPermissions: 0o755]))
        }
        unlink(said)
        return (bin + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"), said)
    }

    @Test("a night: tonight's backup written and verified, the newest kept, older ones removed, a copy on the drive")
    func aNight() throws {
        let dir = TemporaryDirectory("juice-nightly")
        let env = Self.settings(dir.path, server: 0)
        let server = try ExecutableServer(["--data", dir.path + "/shop", "--manager-token-file", try #require(env["JUICE_BACKUP_TOKEN_FILE"])])
        let c = try server.client()
        #expect(try c.command("AUTH backup-test-token-0123456789") == "OK AUTH")
        #expect(try c.command("RESTOCK kiwi 5 key=k1").hasPrefix("OK RESTOCK seq=1"))
        let backups = dir.path + "/backups", drive = dir.path + "/usb"
        let old = ["juice-2026-01-01.backup", "juice-2026-01-02.backup", "juice-2026-01-03.backup", "notes.txt"]
        try Self.put(old, in: backups)
        // The drive fills as the folder here would: pruned the same way, and only of backups
        // (a part some other copy left, a folder named like one, a note: all kept).
        try Self.put(old + ["juice-2026-01-04.backup.part"], in: drive)
        try FileManager.default.createDirectory(atPath: drive + "/juice-2025-12-31.backup", withIntermediateDirectories: true)

        let run = Self.settings(dir.path, server: server.httpPort, keep: 2, copyTo: drive)
        let result = try Executables.run("/bin/bash", [Self.script], environment: run)
        #expect(result.status == 0, "\(result.output)")
        // Tonight's, named by the date the script ran (read from the folder: a run at midnight may name either day).
        let made = Self.tonight(backups)
        #expect(made.count == 1 && made[0].hasPrefix("juice-") && made[0].hasSuffix(".backup"), "\(Self.names(backups))")
        #expect(Self.names(backups) == (["juice-2026-01-03.backup", "juice-backup.lock", "notes.txt"] + made).sorted(), "\(result.output)")
        #expect(result.output.contains("removed 2 older backup(s), keeping the newest 2 in \(backups)\n"), "\(result.output)")
        #expect(Self.names(drive) == (["juice-2025-12-31.backup", "juice-2026-01-03.backup", "juice-2026-01-04.backup.part", "notes.txt"] + made).sorted(),
                "\(result.output)")
        #expect(result.output.contains("removed 2 older backup(s), keeping the newest 2 in \(drive)\n"), "\(result.output)")
        #expect(DeployTests.mode(backups + "/" + made[0]) == 0o600)
        for file in [backups + "/" + made[0], drive + "/" + made[0]] {
            let (status, output) = try ExecutableServer.run(["verify", file])
            #expect(status == 0 && output.contains("seq:          1"), "\(output)")
        }
        #expect(server.terminate() == 0)
    }

    @Test("no server answering, or no drive: exit 1 with the reason, and the backups already kept are left alone")
    func aBadNight() throws {
        let dir = TemporaryDirectory("juice-nightly")
        let backups = dir.path + "/backups"
        try FileManager.default.createDirectory(atPath: backups, withIntermediateDirectories: true)
        for old in ["juice-2026-01-01.backup", "juice-2026-01-02.backup"] {
            #expect(FileManager.default.createFile(atPath: backups + "/" + old, contents: Data("old".utf8)))
        }
        // Bound and held, never listened on: connects are refused, and no other process can take
        // the port during the run (one let go first could be another test's server by then).
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        let free = try #require(bindLoopbackPortZero(fd))
        let down = try Executables.run("/bin/bash", [Self.script], environment: Self.settings(dir.path, server: free, keep: 1))
        #expect(down.status == 1 && down.output.contains("cannot connect"), "\(down.output)")
        #expect(Self.names(backups) == ["juice-2026-01-01.backup", "juice-2026-01-02.backup", "juice-backup.lock"])

        let server = try ExecutableServer(["--in-memory", "--manager-token-file", BackupCommandTests.tokenFile(dir.path)])
        let noDrive = try Executables.run("/bin/bash", [Self.script], environment: Self.settings(dir.path, server: server.httpPort, copyTo: dir.path + "/not-mounted"))
        #expect(noDrive.status == 1 && noDrive.output.contains("is not a folder (is the drive mounted?)"), "\(noDrive.output)")

        let badKeep = try Executables.run("/bin/bash", [Self.script], environment: Self.settings(dir.path, server: server.httpPort, keep: 0))
        #expect(badKeep.status == 1 && badKeep.output.contains("JUICE_BACKUP_KEEP must be a whole number"), "\(badKeep.output)")
    }

    @Test("pruning: a backups folder that is a symlink is pruned; KEEP=010 is ten; tonight's backup is never pruned, even named by a clock that is behind")
    func pruning() throws {
        let dir = TemporaryDirectory("juice-nightly")
        let server = try ExecutableServer(["--in-memory", "--manager-token-file", BackupCommandTests.tokenFile(dir.path)])
        let real = dir.path + "/big-disk"
        func fill(_ folder: String = real) throws {
            try? FileManager.default.removeItem(atPath: folder)
            try Self.put((1...12).map { "juice-2026-01-\($0 < 10 ? "0" : "")\($0).backup" }, in: folder)
        }
        #expect(symlink(real, dir.path + "/backups") == 0)
        func run(keep: String, path: String? = nil, copyTo: String? = nil) throws -> String {
            var env = Self.settings(dir.path, server: server.httpPort, copyTo: copyTo)
            env["JUICE_BACKUP_KEEP"] = keep
            if let path { env["PATH"] = path + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin") }
            let result = try Executables.run("/bin/bash", [Self.script], environment: env)
            #expect(result.status == 0, "\(result.output)")
            return result.output
        }
        // The backups there (beside them, the lock file).
        func backups() -> [String] { Self.names(real).filter { $0.hasSuffix(".backup") } }
        try fill()
        let linked = try run(keep: "3")
        #expect(backups().count == 3 && backups().contains("juice-2026-01-12.backup"), "\(Self.names(real)) \(linked)")

        try fill()
        _ = try run(keep: "010")
        #expect(backups().count == 10, "\(Self.names(real))")

        // A clock at 1970 (a box without a clock battery, at boot): tonight's sorts oldest, and stays.
        try fill()
        let bin = dir.path + "/bin"
        try FileManager.default.createDirectory(atPath: bin, withIntermediateDirectories: true)
        #expect(FileManager.default.createFile(atPath: bin + "/date", contents: Data("#!/bin/sh\n[ \"$1\" = +%F ] && echo 1970-01-01 || exec /bin/date \"$@\"\n".utf8),
                                               attributes: [.posixPermissions: 0o755]))
        let drive = dir.path + "/usb"
        try fill(drive)
        _ = try run(keep: "3", path: bin, copyTo: drive)
        let kept = ["juice-1970-01-01.backup", "juice-2026-01-11.backup", "juice-2026-01-12.backup"]
        #expect(Self.names(real) == kept + ["juice-backup.lock"], "\(Self.names(real))")
        #expect(Self.names(drive) == kept, "\(Self.names(drive))")
        #expect(try ExecutableServer.run(["verify", real + "/juice-1970-01-01.backup"]).0 == 0)
    }

    @Test("the copy: a folder with ':' in its name is a folder; host: and host:~/x are the remote home; a full drive keeps no part",
          .requires(.tmpfsMount))
    func copyTargets() throws {
        let dir = TemporaryDirectory("juice-nightly")
        let server = try ExecutableServer(["--in-memory", "--manager-token-file", BackupCommandTests.tokenFile(dir.path)])
        let drive = dir.path + "/usb:1"
        try FileManager.default.createDirectory(atPath: drive, withIntermediateDirectories: true)
        let local = try Executables.run("/bin/bash", [Self.script], environment: Self.settings(dir.path, server: server.httpPort, copyTo: drive))
        #expect(local.status == 0 && local.output.contains("copied juice-"), "\(local.output)")
        let copied = Self.names(drive)
        #expect(copied.count == 1 && copied[0].hasSuffix(".backup"), "\(copied)")

        let name = copied[0]
        for (copyTo, folder) in [("backup@office:", "."), ("backup@office:~/juice", "juice"), ("backup@office:/srv/juice/", "/srv/juice"),
                                 ("office:juice", "juice")] {
            let (path, said) = try Self.standIns(dir.path)
            var env = Self.settings(dir.path, server: server.httpPort, copyTo: copyTo)
            env["PATH"] = path
            let result = try Executables.run("/bin/bash", [Self.script], environment: env)
            #expect(result.status == 0, "\(copyTo): \(result.output)")
            let host = String(copyTo[..<copyTo.firstIndex(of: ":")!])
            // Two calls, and no third: the far side is not pruned (deploy/juice-backup.sh says why).
            let lines = readText(said).split(separator: "\n").map(String.init)
            #expect(lines.count == 2 && lines[0].hasSuffix(" \(host):\(folder)/\(name).part")
                    && lines[1].hasSuffix("\(host) mv -f -- '\(folder)/\(name).part' '\(folder)/\(name)'"), "\(copyTo): \(lines)")
        }

        let disk = try SmallDisk(megabytes: 1)
        try disk.fill()
        let full = try Executables.run("/bin/bash", [Self.script], environment: Self.settings(dir.path, server: server.httpPort, copyTo: disk.path))
        #expect(full.status == 1 && full.output.contains("copying \(name) to \(disk.path) failed"), "\(full.output)")
        #expect(!Self.names(disk.path).contains { $0.hasSuffix(".part") }, "\(Self.names(disk.path))")
    }

    @Test("a copy over SSH that fails (scp, or the rename there) exits 1 saying so, and removes its part on the far side")
    func sshCopyFails() throws {
        let dir = TemporaryDirectory("juice-nightly")
        let server = try ExecutableServer(["--in-memory", "--manager-token-file", BackupCommandTests.tokenFile(dir.path)])
        for (scpStatus, sshFailing, why) in [(1, "no such command", "(scp)"), (0, "mv", "(renaming ")] {
            let (path, said) = try Self.standIns(dir.path, scpStatus: scpStatus, sshFailing: sshFailing)
            var env = Self.settings(dir.path, server: server.httpPort, copyTo: "backup@office:juice")
            env["PATH"] = path
            let result = try Executables.run("/bin/bash", [Self.script], environment: env)
            let name = try #require(Self.tonight(dir.path + "/backups").first)
            #expect(result.status == 1 && result.output.contains("copying \(name) to backup@office:juice failed \(why)"), "\(result.output)")
            #expect(!result.output.contains("copied"), "\(result.output)")
            let lines = readText(said).split(separator: "\n").map(String.init)
            #expect(lines.last == "ssh -o BatchMode=yes backup@office rm -f -- 'juice/\(name).part'", "\(lines)")
        }
    }

    @Test("the drive: a <name>.part symlink left there is replaced, never written through; a folder named as tonight's is an error, not where the copy goes")
    func copyNeverFollowsALink() throws {
        let dir = TemporaryDirectory("juice-nightly")
        let server = try ExecutableServer(["--in-memory", "--manager-token-file", BackupCommandTests.tokenFile(dir.path)])
        let drive = dir.path + "/usb", theirs = dir.path + "/theirs"
        try Self.put([], in: drive)
        #expect(FileManager.default.createFile(atPath: theirs, contents: Data("theirs".utf8)))
        // Tonight's name, as the script's clock says it (and the next day's, for a run at midnight).
        let days = try [["+%F"], ["-d", "tomorrow", "+%F"]].map { try Executables.run("/bin/date", $0).output }
        for day in days.map({ $0.trimmingCharacters(in: .whitespacesAndNewlines) }) {
            #expect(symlink(theirs, drive + "/juice-\(day).backup.part") == 0)
        }
        let result = try Executables.run("/bin/bash", [Self.script], environment: Self.settings(dir.path, server: server.httpPort, copyTo: drive))
        #expect(result.status == 0 && result.output.contains("copied juice-"), "\(result.output)")
        // Before: cp wrote through the link, the backup (keys, pairings) into their file.
        #expect(readText(theirs) == "theirs")
        let name = try #require(Self.tonight(dir.path + "/backups").first)
        var info = stat()
        #expect(lstat(drive + "/" + name, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG)
        #expect(try ExecutableServer.run(["verify", drive + "/" + name]).0 == 0)

        for leftover in Self.names(drive) where leftover.hasSuffix(".part") { unlink(drive + "/" + leftover) }
        unlink(drive + "/" + name)
        #expect(mkdir(drive + "/" + name, 0o755) == 0)
        let blocked = try Executables.run("/bin/bash", [Self.script], environment: Self.settings(dir.path, server: server.httpPort, copyTo: drive))
        #expect(blocked.status == 1 && blocked.output.contains("copying \(name) to \(drive) failed (renaming"), "\(blocked.output)")
        #expect(Self.names(drive + "/" + name).isEmpty && !Self.names(drive).contains { $0.hasSuffix(".part") }, "\(Self.names(drive))")
    }

    @Test("one run at a time: a second waits for the first's lock, gives up after JUICE_BACKUP_LOCK_WAIT making nothing; two at once both succeed, one whole backup, no temp")
    func oneRunAtATime() throws {
        let dir = TemporaryDirectory("juice-nightly")
        let server = try ExecutableServer(["--in-memory", "--manager-token-file", BackupCommandTests.tokenFile(dir.path)])
        let backups = dir.path + "/backups", drive = dir.path + "/usb", logs = dir.path + "/logs"
        try Self.put([], in: backups)
        try Self.put([], in: drive)
        try Self.put([], in: logs)
        // Another run holds the lock (as flock(1) takes it: the whole file, exclusive).
        let fd = open(backups + "/juice-backup.lock", O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        #expect(fd >= 0 && flock(fd, LOCK_EX) == 0)
        var env = Self.settings(dir.path, server: server.httpPort, copyTo: drive)
        env["JUICE_BACKUP_LOCK_WAIT"] = "1"
        let gaveUp = try Executables.run("/bin/bash", [Self.script], environment: env)
        #expect(gaveUp.status == 1 && gaveUp.output.contains("another juice-backup is running (it holds \(backups)/juice-backup.lock); waiting up to 1 s")
                && gaveUp.output.contains("gave up, no backup made"), "\(gaveUp.output)")
        #expect(Self.names(backups) == ["juice-backup.lock"] && Self.names(drive).isEmpty)

        // Let go a second later: the waiting run goes on then.
        env["JUICE_BACKUP_LOCK_WAIT"] = "60"
        Thread.detachNewThread {
            Thread.sleep(forTimeInterval: 1)
            close(fd)
        }
        let waited = try Executables.run("/bin/bash", [Self.script], environment: env)
        #expect(waited.status == 0 && waited.output.contains("waiting up to 60 s") && waited.output.contains("copied juice-"), "\(waited.output)")

        // The timer's run and a manual one at once, a few times over: each makes tonight's whole,
        // neither trips over the other's temp file or part.
        for round in 1...4 {
            let runs = try (1...2).map { _ in try ChildProcess("/bin/bash", [Self.script], directory: logs, environment: env) }
            for run in runs {
                let status = run.waitForExit() ?? run.killNow()
                #expect(status == 0, "round \(round): \(run.output) \(run.errors)")
            }
            let made = Self.tonight(backups)
            #expect(made.count == 1 && Self.names(backups) == made + ["juice-backup.lock"] && Self.names(drive) == made,
                    "round \(round): \(Self.names(backups)) \(Self.names(drive))")
            for file in [backups, drive].compactMap({ folder in made.first.map { folder + "/" + $0 } }) {
                #expect(try ExecutableServer.run(["verify", file]).0 == 0, "round \(round): \(file)")
            }
        }
    }
}

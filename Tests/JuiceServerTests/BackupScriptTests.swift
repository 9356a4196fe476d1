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

    @Test("a night: tonight's backup written and verified, the newest kept, older ones removed, a copy on the drive")
    func aNight() throws {
        let dir = TemporaryDirectory("juice-nightly")
        let env = Self.settings(dir.path, server: 0)
        let server = try ExecutableServer(["--data", dir.path + "/shop", "--manager-token-file", try #require(env["JUICE_BACKUP_TOKEN_FILE"])])
        let c = try server.client()
        #expect(try c.command("AUTH backup-test-token-0123456789") == "OK AUTH")
        #expect(try c.command("RESTOCK kiwi 5 key=k1").hasPrefix("OK RESTOCK seq=1"))
        let backups = dir.path + "/backups", drive = dir.path + "/usb"
        try FileManager.default.createDirectory(atPath: backups, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: drive, withIntermediateDirectories: true)
        for old in ["juice-2026-01-01.backup", "juice-2026-01-02.backup", "juice-2026-01-03.backup", "notes.txt"] {
            #expect(FileManager.default.createFile(atPath: backups + "/" + old, contents: Data("old".utf8)))
        }

        let run = Self.settings(dir.path, server: server.httpPort, keep: 2, copyTo: drive)
        let result = try Executables.run("/bin/bash", [Self.script], environment: run)
        #expect(result.status == 0, "\(result.output)")
        // Tonight's, named by the date the script ran (read from the folder: a run at midnight may name either day).
        let made = Self.names(backups).filter { !$0.hasPrefix("juice-2026-01") && $0 != "notes.txt" }
        #expect(made.count == 1 && made[0].hasPrefix("juice-") && made[0].hasSuffix(".backup"), "\(Self.names(backups))")
        #expect(Self.names(backups) == (["juice-2026-01-03.backup", "notes.txt"] + made).sorted(), "\(result.output)")
        #expect(result.output.contains("removed 2 older backup(s), keeping the newest 2"), "\(result.output)")
        #expect(Self.names(drive) == made, "\(result.output)")
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
        #expect(Self.names(backups) == ["juice-2026-01-01.backup", "juice-2026-01-02.backup"])

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
        func fill() throws {
            try? FileManager.default.removeItem(atPath: real)
            try FileManager.default.createDirectory(atPath: real, withIntermediateDirectories: true)
            for day in 1...12 {
                #expect(FileManager.default.createFile(atPath: real + "/juice-2026-01-\(day < 10 ? "0" : "")\(day).backup", contents: Data("old".utf8)))
            }
        }
        #expect(symlink(real, dir.path + "/backups") == 0)
        func run(keep: String, path: String? = nil) throws -> String {
            var env = Self.settings(dir.path, server: server.httpPort)
            env["JUICE_BACKUP_KEEP"] = keep
            if let path { env["PATH"] = path + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin") }
            let result = try Executables.run("/bin/bash", [Self.script], environment: env)
            #expect(result.status == 0, "\(result.output)")
            return result.output
        }
        try fill()
        let linked = try run(keep: "3")
        #expect(Self.names(real).count == 3 && Self.names(real).contains("juice-2026-01-12.backup"), "\(Self.names(real)) \(linked)")

        try fill()
        _ = try run(keep: "010")
        #expect(Self.names(real).count == 10, "\(Self.names(real))")

        // A clock at 1970 (a box without a clock battery, at boot): tonight's sorts oldest, and stays.
        try fill()
        let bin = dir.path + "/bin"
        try FileManager.default.createDirectory(atPath: bin, withIntermediateDirectories: true)
        #expect(FileManager.default.createFile(atPath: bin + "/date", contents: Data("#!/bin/sh\n[ \"$1\" = +%F ] && echo 1970-01-01 || exec /bin/date \"$@\"\n".utf8),
                                               attributes: [.posixPermissions: 0o755]))
        _ = try run(keep: "3", path: bin)
        #expect(Self.names(real) == ["juice-1970-01-01.backup", "juice-2026-01-11.backup", "juice-2026-01-12.backup"], "\(Self.names(real))")
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

        // scp and ssh stand-ins that say what they were asked.
        let bin = dir.path + "/bin", said = dir.path + "/said"
        try FileManager.default.createDirectory(atPath: bin, withIntermediateDirectories: true)
        for tool in ["scp", "ssh"] {
            #expect(FileManager.default.createFile(atPath: bin + "/" + tool, contents: Data("#!/bin/sh\necho \"\(tool) $*\" >> \(said)\n".utf8),
                                                   attributes: [.posixPermissions: 0o755]))
        }
        let name = copied[0]
        for (copyTo, folder) in [("backup@office:", "."), ("backup@office:~/juice", "juice"), ("backup@office:/srv/juice/", "/srv/juice"),
                                 ("office:juice", "juice")] {
            unlink(said)
            var env = Self.settings(dir.path, server: server.httpPort, copyTo: copyTo)
            env["PATH"] = bin + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")
            let result = try Executables.run("/bin/bash", [Self.script], environment: env)
            #expect(result.status == 0, "\(copyTo): \(result.output)")
            let host = String(copyTo[..<copyTo.firstIndex(of: ":")!])
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
}

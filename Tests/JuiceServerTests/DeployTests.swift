import Foundation
import Glibc
import Testing

/// What a shop installs (README, "Running it in a shop"): the systemd unit as systemd reads it,
/// the Caddyfile as Caddy reads it, and scripts/install.sh run into a staging root.
@Suite(.onOwnThreads) struct DeployTests {
    /// The package root (this file is Tests/JuiceServerTests/DeployTests.swift).
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path
    static let unit = root + "/deploy/juice-server.service"

    /// The unit with ExecStart pointing at the juice-server this test run built: `verify` checks
    /// that the program exists, and nothing is installed on a test machine.
    static func unitForThisBuild(in dir: String) throws -> String {
        let text = readText(unit)
        #expect(text.contains("ExecStart=/usr/local/bin/juice-server "))
        let path = dir + "/juice-server.service"
        try text.replacingOccurrences(of: "ExecStart=/usr/local/bin/juice-server ", with: "ExecStart=\(ExecutableServer.binary) ")
            .write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// The nightly backup's units, with ExecStart pointing at this checkout's script.
    static func backupUnitsForThisBuild(in dir: String) throws -> [String] {
        let service = readText(root + "/deploy/juice-backup.service")
        #expect(service.contains("ExecStart=/usr/local/bin/juice-backup\n"))
        try service.replacingOccurrences(of: "ExecStart=/usr/local/bin/juice-backup\n", with: "ExecStart=\(root)/deploy/juice-backup.sh\n")
            .write(toFile: dir + "/juice-backup.service", atomically: true, encoding: .utf8)
        try readText(root + "/deploy/juice-backup.timer").write(toFile: dir + "/juice-backup.timer", atomically: true, encoding: .utf8)
        return [dir + "/juice-backup.service", dir + "/juice-backup.timer"]
    }

    @Test(.requires(.systemdAnalyze))
    func theUnitsPassSystemdAnalyzeVerify() throws {
        try OutsideTool.systemdAnalyze.require()
        let dir = temporaryDirectory("juice-unit")
        defer { removeTemporary(dir) }
        let paths = [try Self.unitForThisBuild(in: dir)] + (try Self.backupUnitsForThisBuild(in: dir))
        for path in paths {
            let result = try Executables.run(try #require(OutsideTool.onPath("systemd-analyze")), ["verify", path])
            print("systemd-analyze verify \(path): status \(result.status)\(result.output.isEmpty ? ", no output" : ":\n" + result.output)")
            #expect(result.status == 0, "\(result.output)")
            // A warning (an unknown or misspelt key, a bad value) leaves the status 0: none may show.
            for name in ["juice-server.service", "juice-backup.service", "juice-backup.timer"] {
                #expect(!result.output.contains(name), "\(path): \(result.output)")
            }
        }
    }

    /// What the issue asks of the unit, so that an edit cannot drop it quietly.
    @Test func theUnitSaysWhatAShopNeeds() {
        let lines = Set(readText(Self.unit).split(separator: "\n").map(String.init))
        for line in ["Type=notify", "WatchdogSec=30", "Restart=on-failure", "RestartPreventExitStatus=2 3", "DynamicUser=yes",
                     "StateDirectory=juice-server", "LoadCredential=manager-token:/etc/juice-server/manager-token",
                     "ProtectSystem=strict", "NoNewPrivileges=yes", "LimitNOFILE=16384",
                     "    --manager-token-file ${CREDENTIALS_DIRECTORY}/manager-token \\", "    --trusted-proxy 127.0.0.1/32",
                     "    --max-clients 10000 --reserved-clients 64 --max-clients-per-address 32 --idle-timeout 300 \\"] {
            #expect(lines.contains(line), "the unit has no '\(line)'")
        }
    }

    /// The nightly backup is named by the date, and its timer (Persistent=) fires at boot, when
    /// the clock may not be set yet: the service waits for it. Ordered after the time targets,
    /// never pulling them in: they are passive, reached by the clock's own services.
    @Test func theBackupWaitsForTheClockAtBoot() {
        let lines = readText(Self.root + "/deploy/juice-backup.service").split(separator: "\n")
        func units(_ key: String) -> Set<String> {
            Set(lines.filter { $0.hasPrefix(key + "=") }.flatMap { $0.dropFirst(key.count + 1).split(separator: " ").map(String.init) })
        }
        #expect(units("After").isSuperset(of: ["juice-server.service", "time-set.target", "time-sync.target"]), "\(units("After"))")
        #expect(units("Wants").isDisjoint(with: ["time-set.target", "time-sync.target"]) && units("Requires").isEmpty, "\(units("Wants"))")
    }

    @Test(.requires(.caddy))
    func theCaddyfileAdaptsInBothItsVariants() throws {
        try OutsideTool.caddy.require()
        let caddy = try #require(OutsideTool.onPath("caddy"))
        let text = readText(Self.root + "/deploy/Caddyfile")
        #expect(text.contains("flush_interval -1") && text.contains("tls internal") && text.contains("reverse_proxy 127.0.0.1:7879"))
        let dir = temporaryDirectory("juice-caddyfile")
        defer { removeTemporary(dir) }
        // The commented public site, uncommented, as the file tells a shop with a public name to do.
        let publicName = text.replacingOccurrences(of: "# shop.example {\n# \timport juice\n# }", with: "shop.example {\n\timport juice\n}")
        #expect(publicName != text, "the shop.example block is not where the file says")
        try publicName.write(toFile: dir + "/Caddyfile", atomically: true, encoding: .utf8)
        for file in [Self.root + "/deploy/Caddyfile", dir + "/Caddyfile"] {
            let result = try Executables.run(caddy, ["adapt", "--config", file, "--adapter", "caddyfile"],
                                             environment: ["HOME": dir, "XDG_DATA_HOME": dir, "XDG_CONFIG_HOME": dir])
            #expect(result.status == 0, "\(file): \(result.output)")
            #expect(result.output.contains("\"flush_interval\":-1"), "\(file): \(result.output)")
        }
        #expect(readText(dir + "/Caddyfile").contains("shop.example {"))
    }

    @Test(.requires(.shellcheck))
    func everyScriptPassesShellcheck() throws {
        try OutsideTool.shellcheck.require()
        let scripts = try ["scripts", "deploy"].flatMap { folder in
            try FileManager.default.contentsOfDirectory(atPath: Self.root + "/" + folder).filter { $0.hasSuffix(".sh") }.map { folder + "/" + $0 }
        }.sorted()
        #expect(scripts.contains("scripts/install.sh") && scripts.contains("deploy/juice-backup.sh"))
        let result = try Executables.run(try #require(OutsideTool.onPath("shellcheck")), scripts.map { Self.root + "/" + $0 })
        #expect(result.status == 0, "\(result.output)")
    }

    /// Into a staging root (`--root`), with this build's binaries (`--bin-dir`): binaries, unit and
    /// a token only root can read; a second run keeps the token; `--uninstall` keeps the data and
    /// the token.
    @Test func installIsIdempotentAndUninstallKeepsTheData() throws {
        let stage = temporaryDirectory("juice-install")
        defer { removeTemporary(stage) }
        let script = Self.root + "/scripts/install.sh"
        func install(_ extra: [String] = []) throws -> String {
            let result = try Executables.run("/bin/bash", [script, "--root", stage, "--bin-dir", Executables.directory.path] + extra)
            #expect(result.status == 0, "\(result.output)")
            return result.output
        }
        _ = try install()
        for name in ["juice-server", "juice-till", "juice-board"] {
            #expect(FileManager.default.isExecutableFile(atPath: stage + "/usr/local/bin/" + name), "\(name) not installed")
        }
        for unit in ["juice-server.service", "juice-backup.service", "juice-backup.timer"] {
            #expect(readText(stage + "/etc/systemd/system/" + unit) == readText(Self.root + "/deploy/" + unit), "\(unit)")
        }
        #expect(readText(stage + "/usr/local/bin/juice-backup") == readText(Self.root + "/deploy/juice-backup.sh"))
        #expect(FileManager.default.isExecutableFile(atPath: stage + "/usr/local/bin/juice-backup"))
        #expect(Self.mode(stage + "/var/backups/juice-server") == 0o700)
        let tokenPath = stage + "/etc/juice-server/manager-token"
        let token = readText(tokenPath)
        #expect(token.count == 49 && token.hasSuffix("\n") && token.dropLast().allSatisfy(\.isHexDigit), "token: \(token)")
        #expect(Self.mode(tokenPath) == 0o600 && Self.mode(stage + "/etc/juice-server") == 0o700)
        // The server takes it as its token file.
        let server = try ExecutableServer(["--in-memory", "--manager-token-file", tokenPath, "--no-http"])
        #expect(try server.client().ask("AUTH \(token.dropLast())") == "OK AUTH")
        server.stop()

        chmod(tokenPath, 0o644)
        let again = try install()
        #expect(again.contains("keeping the manager token"))
        #expect(readText(tokenPath) == token && Self.mode(tokenPath) == 0o600)

        let data = stage + "/var/lib/juice-server"
        try FileManager.default.createDirectory(atPath: data, withIntermediateDirectories: true)
        #expect(FileManager.default.createFile(atPath: data + "/journal", contents: Data("kept".utf8)))
        let backup = stage + "/var/backups/juice-server/juice-2026-11-27.backup"
        #expect(FileManager.default.createFile(atPath: backup, contents: Data("kept".utf8)))
        _ = try install(["--uninstall"])
        for gone in ["/usr/local/bin/juice-server", "/usr/local/bin/juice-backup", "/etc/systemd/system/juice-server.service",
                     "/etc/systemd/system/juice-backup.service", "/etc/systemd/system/juice-backup.timer"] {
            #expect(!FileManager.default.fileExists(atPath: stage + gone), "\(gone) is still there")
        }
        #expect(readText(backup) == "kept")
        #expect(readText(data + "/journal") == "kept" && readText(tokenPath) == token)
    }

    static func mode(_ path: String) -> mode_t {
        var info = stat()
        return stat(path, &info) == 0 ? info.st_mode & 0o7777 : 0
    }
}

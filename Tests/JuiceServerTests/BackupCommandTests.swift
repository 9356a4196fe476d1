import Foundation
import Glibc
import JuiceTestSupport
@testable import JuiceServer
import Testing

/// `juice-server backup`, run as the nightly job runs it: from a real server, through its HTTP
/// port, with the manager's token file. What it writes is a file `verify` and `restore` accept;
/// whatever goes wrong (no token, a damaged or cut-short answer, no server) leaves no file.
@Suite(.onOwnThreads) struct BackupCommandTests {
    static func tokenFile(_ dir: String) -> String {
        let path = dir + "/manager-token"
        FileManager.default.createFile(atPath: path, contents: Data("backup-test-token-0123456789\n".utf8))
        return path
    }

    @Test("backup DIR writes the server's whole state under its dated name, owner-only, and restore starts it")
    func writesAWholeBackup() throws {
        let dir = TemporaryDirectory("juice-backup-cmd")
        let token = Self.tokenFile(dir.path)
        let server = try ExecutableServer(["--data", dir.path + "/shop", "--manager-token-file", token])
        let c = try server.client()
        #expect(try c.command("AUTH backup-test-token-0123456789") == "OK AUTH")
        #expect(try c.command("RESTOCK kiwi 5 key=k1").hasPrefix("OK RESTOCK seq=1"))
        #expect(try c.command("ORDER banana key=k2").hasPrefix("OK ORDER banana 1 seq=2"))
        let stock = try c.command("STOCK")
        try FileManager.default.createDirectory(atPath: dir.path + "/nightly", withIntermediateDirectories: true)

        let (status, output) = try ExecutableServer.run(["backup", dir.path + "/nightly", "--server", "127.0.0.1:\(server.httpPort)",
                                                         "--manager-token-file", token])
        #expect(status == 0, "\(output)")
        let names = try FileManager.default.contentsOfDirectory(atPath: dir.path + "/nightly")
        #expect(names.count == 1 && names[0].hasPrefix("juice-") && names[0].hasSuffix(".backup"), "\(names)")
        let file = dir.path + "/nightly/" + names[0]
        #expect(output.contains("backup written to \(file)") && output.contains("seq:          2"), "\(output)")
        #expect(DeployTests.mode(file) == 0o600)
        #expect(server.terminate() == 0)

        let (verified, said) = try ExecutableServer.run(["verify", file])
        #expect(verified == 0 && said.contains("seq:          2"), "\(said)")
        #expect(try ExecutableServer.run(["restore", file, "--data", dir.path + "/restored"]).0 == 0)
        let restored = try ExecutableServer(["--data", dir.path + "/restored", "--no-http"])
        #expect(try restored.client().command("STOCK") == stock)
        #expect(restored.terminate() == 0)
    }

    @Test("without the token (or with a wrong one) the server's refusal is said, with the flag to fix it, and no file is written")
    func refusedWithoutTheToken() throws {
        let dir = TemporaryDirectory("juice-backup-cmd")
        let server = try ExecutableServer(["--in-memory", "--manager-token-file", Self.tokenFile(dir.path)])
        let target = dir.path + "/juice.backup"
        for environment in [[:], ["JUICE_MANAGER_TOKEN": "not-the-token-0123456789"]] {
            let (status, output) = try ExecutableServer.run(["backup", target, "--server", "127.0.0.1:\(server.httpPort)"], environment: environment)
            #expect(status == 1, "\(output)")
            #expect(output.contains("answered 401") && output.contains("--manager-token-file") && output.contains("no file was written"), "\(output)")
            #expect(!FileManager.default.fileExists(atPath: target) && !FileManager.default.fileExists(atPath: target + ".tmp"))
        }
        // With it from the environment, as a shell would give it.
        let (status, output) = try ExecutableServer.run(["backup", target, "--server", "127.0.0.1:\(server.httpPort)"],
                                                        environment: ["JUICE_MANAGER_TOKEN": "backup-test-token-0123456789"])
        #expect(status == 0 && FileManager.default.fileExists(atPath: target), "\(output)")
    }

    @Test("a temp file left where the backup goes (another's file, open to all, or a symlink) never takes the backup: it is made anew, owner-only")
    func leftoverTempFile() throws {
        let dir = TemporaryDirectory("juice-backup-cmd")
        let server = try ExecutableServer(["--in-memory"])
        let open = dir.path + "/open.backup", linked = dir.path + "/linked.backup", elsewhere = dir.path + "/elsewhere"
        #expect(FileManager.default.createFile(atPath: open + ".tmp", contents: Data("left over".utf8), attributes: [.posixPermissions: 0o666]))
        #expect(symlink(elsewhere, linked + ".tmp") == 0)
        for target in [open, linked] {
            let (status, output) = try ExecutableServer.run(["backup", target, "--server", "127.0.0.1:\(server.httpPort)"])
            #expect(status == 0, "\(output)")
            var info = stat()
            #expect(lstat(target, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG, "\(target) is not a plain file")
            #expect(info.st_mode & 0o777 == 0o600, "\(target): mode \(String(info.st_mode & 0o777, radix: 8))")
            #expect(try ExecutableServer.run(["verify", target]).0 == 0)
        }
        #expect(!FileManager.default.fileExists(atPath: elsewhere), "the backup went where the link pointed")
    }

    /// The nightly timer and a manual run (or two people) at once, writing the same FILE: each
    /// stages its own temp file, so neither renames the other's half-written one into place nor
    /// loses its own to the other's cleanup. Several rounds: the race is a matter of timing.
    @Test("two (three) backups into the same FILE at once: all succeed, one whole file that verifies, no temp file left")
    func concurrentBackupsToOneFile() throws {
        let dir = TemporaryDirectory("juice-backup-cmd")
        let server = try ExecutableServer(["--in-memory"])
        let out = dir.path + "/out", logs = dir.path + "/logs"
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: logs, withIntermediateDirectories: true)
        let target = out + "/same.backup"
        for round in 1...8 {
            // At most three at once: the server sends four backups at a time (`maxBackupsSending`).
            let runs = try (1...3).map { _ in
                try ChildProcess(ExecutableServer.binary, ["backup", target, "--server", "127.0.0.1:\(server.httpPort)"], directory: logs)
            }
            for run in runs {
                let status = run.waitForExit() ?? run.killNow()
                #expect(status == 0, "round \(round): \(run.output) \(run.errors)")
            }
            #expect(try ExecutableServer.run(["verify", target]).0 == 0, "round \(round)")
            #expect(try FileManager.default.contentsOfDirectory(atPath: out) == ["same.backup"], "round \(round)")
        }
    }

    /// A stand-in server on a loopback port: it accepts one connection, reads its request, lets
    /// `answer` write to it, then closes. Its port.
    static func standIn(_ answer: @escaping @Sendable (Int32) -> Void) throws -> Int {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard let port = bindLoopbackPortZero(listener, listenBacklog: 4) else { throw TestError("bind", errno: errno) }
        Thread.detachNewThread {
            let fd = accept(listener, nil, nil)
            var request = [UInt8](repeating: 0, count: 4096)
            _ = recv(fd, &request, request.count, 0)
            answer(fd)
            close(fd)
            close(listener)
        }
        return port
    }

    /// One that answers with `answer` at once.
    static func answerOnce(_ answer: [UInt8]) throws -> Int {
        try standIn { fd in _ = answer.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) } }
    }

    @Test("a backup that is cut short, damaged, or not a backup at all is refused naming what is wrong, and nothing is written")
    func refusesABadAnswer() throws {
        let dir = TemporaryDirectory("juice-backup-cmd")
        let server = try ExecutableServer(["--in-memory"])
        let target = dir.path + "/juice.backup"
        #expect(try ExecutableServer.run(["backup", target, "--server", "127.0.0.1:\(server.httpPort)"]).0 == 0)
        let whole = [UInt8](try #require(FileManager.default.contents(atPath: target)))
        #expect(unlink(target) == 0)
        func head(_ length: Int) -> [UInt8] { Array("HTTP/1.1 200 OK\r\nContent-Length: \(length)\r\nContent-Disposition: attachment; filename=\"../../etc/x\"\r\n\r\n".utf8) }
        var flipped = whole
        flipped[whole.count / 2] ^= 0x20
        let cases: [([UInt8], String)] = [
            (head(whole.count) + whole.prefix(whole.count / 3), "cut short"),
            (head(whole.count) + flipped, "offset"),
            (Array("SSH-2.0-OpenSSH_9.2\r\n\r\n".utf8), "did not answer as an HTTP server"),
            (Array("HTTP/1.1 200 OK\r\n\r\n".utf8), "without a Content-Length"),
            // Two gigabytes announced, something else sent: refused at its first bytes, not read
            // (and held) whole first.
            (head(1 << 31) + [UInt8](repeating: UInt8(ascii: "x"), count: 300), "did not answer with a juice-server backup"),
        ]
        for (answer, expected) in cases {
            let port = try Self.answerOnce(answer)
            let (status, output) = try ExecutableServer.run(["backup", dir.path + "/", "--server", "127.0.0.1:\(port)"])
            #expect(status == 1 && output.contains(expected) && output.contains("no file was written"), "\(expected): \(output)")
            // The damage is the server's answer's: never a file that was not written, nor a restore.
            #expect(!output.contains("restored") && !output.contains("backup \(dir.path)"), "\(expected): \(output)")
            if expected == "offset" { #expect(output.contains("backup answered by http://127.0.0.1:\(port) is damaged at offset"), "\(output)") }
            #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).isEmpty, "\(expected)")
        }
        // A name from the server is used only if it is a plain one: never a path out of the folder.
        let port = try Self.answerOnce(head(whole.count) + whole)
        let (status, output) = try ExecutableServer.run(["backup", dir.path + "/", "--server", "127.0.0.1:\(port)"])
        #expect(status == 0 && output.contains("backup written to \(dir.path)/juice.backup"), "\(output)")
    }

    @Test("verify refuses a 3 GB file of something else at its first bytes, without reading it whole")
    func hugeNotABackup() throws {
        let dir = TemporaryDirectory("juice-backup-cmd")
        let file = dir.path + "/huge.backup"
        // Sparse: 3 GiB of zeros that take no disk. Read whole (twice, as before) it took 6 GB.
        let fd = open(file, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        #expect(fd >= 0 && ftruncate(fd, 3 << 30) == 0)
        close(fd)
        let (status, output) = try ExecutableServer.run(["verify", file])
        #expect(status == 1 && output.contains("offset 0"), "\(output)")
    }

    /// A stand-in server that accepts one connection, reads its request, and then sends a head
    /// one byte every `interval` seconds, for `seconds` at most: never silent for a whole stall.
    static func trickle(interval: Double, seconds: Double) throws -> Int {
        try standIn { fd in
            let head = Array("HTTP/1.1 200 OK\r\nX-Slow: ".utf8) + [UInt8](repeating: UInt8(ascii: "a"), count: 100_000)
            let started = Date()
            for byte in head where Date().timeIntervalSince(started) < seconds {
                guard send(fd, [byte], 1, Int32(MSG_NOSIGNAL)) == 1 else { break }
                Thread.sleep(forTimeInterval: interval)
            }
        }
    }

    @Test("a server that trickles its answer, a byte now and then, is given up on at the whole answer's deadline")
    func tricklingServer() throws {
        let trickle = 30.0
        let port = try Self.trickle(interval: 0.1, seconds: trickle)
        var download = BackupDownload(host: "127.0.0.1", port: UInt16(port), token: nil)
        download.stallSeconds = 2
        download.totalSeconds = 3
        let started = Date()
        do {
            _ = try download.fetch()
            Issue.record("a trickled answer was taken")
        } catch {
            #expect(error.description.contains("did not send the whole answer within 3 s"), "\(error)")
        }
        // Given up on before the trickle ended by itself: that is what the 3 s deadline is for.
        // (Not "within 10 s": how long 3 s takes on a busy machine is not this test's business.)
        #expect(Date().timeIntervalSince(started) < trickle)
    }

    @Test("backup ends at SIGTERM (the unit's stop, timeout(1)) and Ctrl-C while it waits for a server, and writes nothing")
    func stopsOnSignal() throws {
        let dir = TemporaryDirectory("juice-backup-cmd")
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(listener) }
        let port = try #require(bindLoopbackPortZero(listener, listenBacklog: 4))
        for number in [SIGTERM, SIGINT] {
            let child = try ChildProcess(ExecutableServer.binary, ["backup", dir.path + "/out/", "--server", "127.0.0.1:\(port)"],
                                         directory: dir.path)
            // It connected and sent its request: now it waits for an answer that never comes.
            var pending = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
            try #require(poll(&pending, 1, 30_000) == 1, "it never connected: \(child.output) \(child.errors)")
            let fd = accept(listener, nil, nil)
            defer { close(fd) }
            var request = [UInt8](repeating: 0, count: 4096)
            #expect(recv(fd, &request, request.count, 0) > 0)
            Thread.sleep(forTimeInterval: 0.2)
            child.signal(number)
            let status = child.waitForExit()
            #expect(status == -number, "signal \(number): \(status.map(String.init) ?? "still running \(Int(testDeadline)) s later")")
            if status == nil { child.killNow() }
            #expect(!FileManager.default.fileExists(atPath: dir.path + "/out"))
        }
    }

    @Test("no server on the port: a clear message, exit 1")
    func noServer() throws {
        // Bound and held, never listened on: connects are refused, and no other process can take
        // the port during the run (one let go first could be another test's server by then).
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        let free = try #require(bindLoopbackPortZero(fd))
        let (status, output) = try ExecutableServer.run(["backup", "--server", "127.0.0.1:\(free)"], directory: temporaryDirectory("juice-backup-cmd"))
        #expect(status == 1 && output.contains("cannot connect to http://127.0.0.1:\(free)") && output.contains("is juice-server running"), "\(output)")
    }

    @Test("--server takes HOST:PORT, [IPv6]:PORT or a host alone (port 7879); anything else is a usage error")
    func serverFlag() {
        #expect(BackupCommandLine.hostAndPort("127.0.0.1:7000")! == ("127.0.0.1", 7000))
        #expect(BackupCommandLine.hostAndPort("[::1]:8080")! == ("::1", 8080))
        #expect(BackupCommandLine.hostAndPort("[::1]")! == ("::1", 7879))
        #expect(BackupCommandLine.hostAndPort("shop.local")! == ("shop.local", 7879))
        for bad in ["", ":7879", "host:", "host:0", "host:70000", "::1:7879", "[::1", "[::1]x", "host:port"] {
            #expect(BackupCommandLine.hostAndPort(bad) == nil, "\(bad)")
        }
        guard case .failure(let error) = CommandLineOptions.parse(["backup", "--server", "x:y"]) else { Issue.record("accepted"); return }
        #expect(error.description.contains("--server needs HOST:PORT"))
        guard case .success(.backup(let request)) = CommandLineOptions.parse(["backup", "out/"], environment: ["JUICE_MANAGER_TOKEN": "t0ken-abcdefghijklmnop"]) else {
            Issue.record("not a backup"); return
        }
        #expect(request.target == "out/" && request.host == "127.0.0.1" && request.port == 7879 && request.token == Array("t0ken-abcdefghijklmnop".utf8))
    }
}

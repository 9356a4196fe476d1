import Foundation
import JuiceTestSupport
import Testing

/// `GET /backup` over real sockets, against the built server: the manager's only, and a backup
/// taken while a till keeps ordering (and the journal compacts) holds every order acknowledged
/// before its request began: restored and started, the store answers each one's key `dup`.
@Suite(.onOwnThreads) struct BackupRouteTests {
    static let token = "backup-token"

    static func get(_ port: Int, _ path: String = "/backup", token: String? = BackupRouteTests.token, method: String = "GET") throws -> HTTPReply {
        try HTTPClient.request(method, port: port, path, headers: token.map { ["Authorization: Bearer \($0)"] } ?? [])
    }

    @Test("the route needs the manager token; it names a dated attachment; a store in memory has one too")
    func managersOnly() throws {
        let dir = TemporaryDirectory("juice-backup")
        let server = try ExecutableServer(["--data", dir.path + "/shop"], environment: ["JUICE_MANAGER_TOKEN": Self.token])
        for token in [nil, "nope"] {
            let refused = try Self.get(server.httpPort, token: token)
            #expect(refused.status == 401 && refused.header("WWW-Authenticate") == "Bearer realm=\"juice-server\"", "\(refused.statusLine)")
            #expect(!refused.text.contains("juice-backup"))
        }
        let reply = try Self.get(server.httpPort)
        #expect(reply.status == 200, "\(reply.statusLine) \(reply.text)")
        #expect(reply.header("Content-Type") == "application/octet-stream")
        let disposition = try #require(reply.header("Content-Disposition"))
        #expect(disposition.range(of: #"^attachment; filename="juice-\d{4}-\d{2}-\d{2}\.backup"$"#, options: .regularExpression) != nil, "\(disposition)")
        #expect(reply.text.contains("juice-backup 1 "))
        let head = try Self.get(server.httpPort, method: "HEAD")
        #expect(head.status == 200 && head.body.isEmpty && head.header("Content-Length") == "\(reply.body.count)")
        #expect(try Self.get(server.httpPort, "/backup?x=1").status == 400)
        // Asked again on an unchanged store, the kept backup (its "taken" time too); after a
        // change, a new one that holds it.
        #expect(try Self.get(server.httpPort).body == reply.body)
        let till = try server.client()
        #expect(try till.command("AUTH \(Self.token)").hasPrefix("OK"))
        #expect(try till.command("RESTOCK kiwi 1").hasPrefix("OK RESTOCK"))
        let after = try Self.get(server.httpPort)
        #expect(after.status == 200 && after.body != reply.body && after.text.contains("kiwi"))

        // A store in memory has one too: restored, it is that state on disk.
        let memory = try ExecutableServer(["--in-memory"])
        let c = try memory.client()
        #expect(try c.command("ORDER banana key=m1").hasPrefix("OK ORDER banana 1 seq=1 "))
        let saved = try Self.get(memory.httpPort, token: nil)
        #expect(saved.status == 200, "\(saved.statusLine)")
        let file = dir.path + "/memory.backup"
        #expect(FileManager.default.createFile(atPath: file, contents: Data(saved.body)))
        #expect(try ExecutableServer.run(["restore", file, "--data", dir.path + "/from-memory"]).0 == 0)
        let restored = try ExecutableServer(["--data", dir.path + "/from-memory", "--no-http"])
        let r = try restored.client()
        #expect(try r.command("ORDER banana key=m1").hasSuffix(" dup"))
        #expect(try r.command("ORDER banana key=m2").hasPrefix("OK ORDER banana 1 seq=2 "))
    }

    /// As every read route answers another method: 405 naming GET and HEAD, before the token
    /// is asked for. A POST without a body length (curl -X POST) was 411 here, a refusal of its
    /// framing, which told the client to add a body instead of that the route takes none.
    @Test("any other method on /backup (a POST without Content-Length, or chunked, too) is 405 with Allow: GET, HEAD, as on /state")
    func otherMethodsAre405() throws {
        let server = try ExecutableServer(["--in-memory"], environment: ["JUICE_MANAGER_TOKEN": Self.token])
        for method in ["POST", "PUT", "DELETE", "PATCH", "OPTIONS"] {
            for token in [nil, Self.token] {
                let reply = try Self.get(server.httpPort, token: token, method: method)
                #expect(reply.status == 405 && reply.header("Allow") == "GET, HEAD", "\(method): \(reply.statusLine)")
                #expect(!reply.text.contains("juice-backup"))
            }
        }
        for path in ["/backup", "/state"] {
            let noLength = try HTTPClient.exchange(port: server.httpPort, "POST \(path) HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(noLength.status == 405 && noLength.header("Allow") == "GET, HEAD", "\(path): \(noLength.statusLine)")
            // Its body, if any, cannot be framed: nothing after it is read as a request.
            #expect(noLength.header("Connection") == "close", "\(path)")
            let chunked = try HTTPClient.exchange(port: server.httpPort, "POST \(path) HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n")
            #expect(chunked.status == 405 && chunked.header("Allow") == "GET, HEAD" && chunked.header("Connection") == "close", "\(path): \(chunked.statusLine)")
        }
        // A GET's framing is still judged as before: the method is right, the body is not.
        let chunkedGet = try HTTPClient.exchange(port: server.httpPort, "GET /backup HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n")
        #expect(chunkedGet.status == 411, "\(chunkedGet.statusLine)")
    }

    @Test("a backup taken while orders are acknowledged holds every one acknowledged before its request; restored, retries get dup")
    func backupUnderLoad() throws {
        let dir = TemporaryDirectory("juice-backup")
        let server = try ExecutableServer(["--data", dir.path + "/shop", "--initial-stock", "1000000", "--journal-max-bytes", "16384"],
                                          environment: ["JUICE_MANAGER_TOKEN": Self.token])
        let acknowledged = Locked<[String]>([])
        let stop = Locked(false)
        let till = try server.client()
        #expect(try till.command("AUTH \(Self.token)").hasPrefix("OK"))
        let done = DispatchSemaphore(value: 0)
        let seller = Thread {
            var n = 0
            while !stop.get {
                n += 1
                guard let reply = try? till.command("ORDER banana key=b\(n)"), reply.hasPrefix("OK ORDER") else { break }
                acknowledged.update { $0.append("b\(n)") }
            }
            done.signal()
        }
        seller.start()
        var backups: [(keys: [String], bytes: [UInt8])] = []
        for wanted in [100, 400] {
            #expect(eventually { acknowledged.get.count >= wanted })
            let before = acknowledged.get
            let reply = try Self.get(server.httpPort)
            #expect(reply.status == 200, "\(reply.statusLine)")
            backups.append((before, reply.body))
        }
        stop.update { $0 = true }
        done.wait()
        // Waited for: the server's log thread writes each line a moment after what it reports.
        #expect(server.logShows("compacted the journal"), "no compaction ran while backing up")
        for (i, backup) in backups.enumerated() {
            let file = dir.path + "/\(i).backup"
            #expect(FileManager.default.createFile(atPath: file, contents: Data(backup.bytes)))
            let (verified, said) = try ExecutableServer.run(["verify", file])
            #expect(verified == 0, "\(said)")
            let (restored, output) = try ExecutableServer.run(["restore", file, "--data", dir.path + "/restored-\(i)"])
            #expect(restored == 0, "\(output)")
            let copy = try ExecutableServer(["--data", dir.path + "/restored-\(i)", "--no-http"], environment: ["JUICE_MANAGER_TOKEN": Self.token])
            let c = try copy.client()
            #expect(try c.command("AUTH \(Self.token)").hasPrefix("OK"))
            let stock = try c.command("STOCK banana")
            let seq = try #require(stock.split(separator: " ").first { $0.hasPrefix("seq=") }.flatMap { Int($0.dropFirst(4)) })
            #expect(seq >= backup.keys.count && output.contains("seq:          \(seq)"), "\(stock)")
            #expect(stock == "OK STOCK seq=\(seq) banana=\(1_000_000 - 2 * seq)")
            for key in backup.keys {
                let again = try c.command("ORDER banana key=\(key)")
                #expect(again.hasSuffix(" dup"), "\(key): \(again)")
                if !again.hasSuffix(" dup") { break }
            }
            #expect(copy.terminate() == 0)
        }
    }

    @Test("a backup larger than --max-output-bytes goes out whole, a part at a time as the socket takes it")
    func pacedBody() throws {
        let dir = TemporaryDirectory("juice-backup")
        let server = try ExecutableServer(["--data", dir.path + "/shop", "--max-output-bytes", "4096", "--initial-stock", "100000"])
        let c = try server.client()
        try c.sendRaw(Array((1...300).map { "ORDER banana key=paced-\($0)\r\n" }.joined().utf8))
        for _ in 1...300 { _ = try c.reply() }
        #expect(try c.command("STOCK banana") == "OK STOCK seq=300 banana=99400")
        let reply = try Self.get(server.httpPort, token: nil)
        #expect(reply.status == 200 && reply.body.count > 4 * 4096, "\(reply.statusLine) \(reply.body.count) bytes")
        let file = dir.path + "/paced.backup"
        #expect(FileManager.default.createFile(atPath: file, contents: Data(reply.body)))
        let (status, output) = try ExecutableServer.run(["verify", file])
        #expect(status == 0 && output.contains("keys:         300"), "\(output)")
        // The connection goes on: the next request on it is answered after the whole backup.
        #expect(try Self.get(server.httpPort, "/healthz", token: nil).status == 200)
        // Absent: checked once the server stopped, which writes out every line it logged (read
        // while it ran, a line its log thread had not written yet was absent too).
        server.stop()
        #expect(!server.log().contains("slow client"))
    }

    @Test("clients that ask for the backup and stop reading share the store's kept copy: memory does not grow a backup per client")
    func sharedAcrossClients() throws {
        let dir = TemporaryDirectory("juice-backup")
        // Parts of 32 KiB: what a client that stops reading holds of its own is one part.
        let server = try ExecutableServer(["--data", dir.path + "/shop", "--initial-stock", "1000000", "--max-output-bytes", "65536"])
        // Long keys: a backup over a megabyte.
        let c = try server.client()
        let pad = String(repeating: "k", count: 50)
        for batch in 0..<9 {
            try c.sendRaw(Array((0..<1000).map { "ORDER banana key=\(pad)-\(batch)-\($0)\r\n" }.joined().utf8))
            for _ in 0..<1000 { #expect(try c.reply().hasPrefix("OK ORDER")) }
        }
        let size = try Self.get(server.httpPort, token: nil).body.count
        #expect(size > 1_000_000, "\(size) bytes")
        waitForIdleCPU(server)
        let before = server.rss
        // Each asks three times, pipelined, and reads nothing: the kernel takes what it can of
        // the first answers, the rest waits in the server.
        let request = Array("GET /backup HTTP/1.1\r\nHost: x\r\n\r\n".utf8)
        let clients = try (0..<30).map { _ in try LineClient.peer(port: server.httpPort, receiveBuffer: 4096) }
        for client in clients { try client.sendRaw(request + request + request) }
        waitForIdleCPU(server)
        let grown = server.rss - before
        print("30 clients holding a \(mebibytes(size)) backup: RSS \(mebibytes(before)) -> \(mebibytes(server.rss))")
        #expect(grown < 10 * size, "RSS grew by \(mebibytes(grown)) for a \(mebibytes(size)) backup")
        #expect(try Self.get(server.httpPort, "/healthz", token: nil).status == 200)
        _ = clients
    }
}

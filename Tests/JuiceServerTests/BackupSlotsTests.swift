import Foundation
import JuiceHTTP
import JuiceTestSupport
import Testing

/// A backup going out a part at a time holds its copy of the store until its last part is out,
/// and the store encodes a new copy once the journal moved: clients that ask and stop reading
/// could each hold one. So at most `HTTPProtocol.maxBackupsSending` go out at once; past that a
/// `GET /backup` is 503 with Retry-After, before anything is encoded, and a slot frees when its
/// client goes.
@Suite(.onOwnThreads) struct BackupSlotsTests {
    static let ask = Array("GET /backup HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".utf8)

    @Test("past 4 backups going out at once a fifth is 503 with Retry-After; when one of the 4 goes, the next is answered")
    func fewAtOnce() throws {
        // A backup larger than the kernel takes for a client that reads nothing (Linux grows a
        // socket's send buffer to 4 MiB at most): 60,000 remembered keys, about 5 MB.
        let server = try ExecutableServer(["--in-memory", "--keys-per-address", "100000", "--key-memory", "100000"])
        let writer = try server.client()
        for chunk in stride(from: 0, to: 60_000, by: 5_000) {
            try writer.sendRaw(Array((chunk..<chunk + 5_000).map { "RESTOCK kiwi 1 key=slot-\($0)\r\n" }.joined().utf8))
            for _ in 0..<5_000 { _ = try writer.reply() }
        }
        var holding: [LineClient] = []
        for _ in 0..<HTTPProtocol.maxBackupsSending {
            let client = try LineClient(port: server.httpPort, readGreeting: false, receiveBuffer: 4096)
            try client.sendRaw(Self.ask)
            #expect(try client.readLine().hasPrefix("HTTP/1.1 200"))   // its answer began; it reads no more
            holding.append(client)
        }
        let refused = try HTTPClient.exchange(port: server.httpPort, Self.ask)
        #expect(refused.status == 503 && refused.header("Retry-After") == "5" && refused.text.contains("backups are being sent"),
                "\(refused.statusLine) \(refused.text)")
        holding.removeFirst().close()
        #expect(eventually {
            let reply = try? HTTPClient.exchange(port: server.httpPort, Self.ask)
            return reply?.status == 200 && reply?.body.count ?? 0 > 4_000_000
        }, "no backup after one of the four went")
        #expect(server.terminate() == 0)
    }
}

import Foundation
import Testing
import JuiceClient

/// A store has an id (`EVENT HELLO ... store=<id>`, `/state`'s "store", event-stream ids
/// `<store>:<seq>`), and a resume that names another store gets the whole state: over TCP
/// (`SINCE <seq> store=<id>`), over the event stream (`Last-Event-ID: <id>:<seq>`) and in
/// JuiceClient (`.full(resync: true)`). The other store's seq is ahead of the client's, the case
/// a seq alone cannot tell from "the same store, a few changes later". A client that sends no id
/// keeps today's behaviour.
@Suite(.serialized, .onOwnThreads) struct StoreIdentityTests {
    /// The server at the same port comes back on a restored backup of another store.
    @Test(.timeLimit(.minutes(3)))
    func aRestoredBackupOfAnotherStoreResyncs() async throws {
        try await resumeAgainstAnotherStore(restoreBackup: true)
    }

    /// The server at the same port comes back on another, fresh data directory.
    @Test(.timeLimit(.minutes(3)))
    func aSwapToAFreshStoreResyncs() async throws {
        try await resumeAgainstAnotherStore(restoreBackup: false)
    }

    /// The id is made once and kept: the same data directory greets with the same id after a
    /// restart, a wiped one with a new id, and an in-memory store with a new one each run.
    @Test(.timeLimit(.minutes(2)))
    func theIdIsKeptWithTheDataAndNewForANewStore() throws {
        let work = temporaryDirectory("juice-store-id")
        defer { removeTemporary(work) }
        let first = try Self.storeID(of: ExecutableServer(["--data", work + "/data"]))
        #expect(readText(work + "/data/store-id") == first + "\n")
        #expect(try Self.storeID(of: ExecutableServer(["--data", work + "/data"])) == first)
        for name in ["journal", "snapshot"] { try? FileManager.default.removeItem(atPath: work + "/data/" + name) }
        #expect(try Self.storeID(of: ExecutableServer(["--data", work + "/data"])) != first, "a wiped store kept its id")
        let memory = try Self.storeID(of: ExecutableServer(["--in-memory"]))
        #expect(try Self.storeID(of: ExecutableServer(["--in-memory"])) != memory)
        #expect(first.count == 16 && memory.count == 16)
    }

    // MARK: -

    /// Store A (the client's) reaches seq 2; store B, prepared beforehand, is at seq 5 with other
    /// stock. The server restarts on B at A's port.
    private func resumeAgainstAnotherStore(restoreBackup: Bool) async throws {
        let work = temporaryDirectory("juice-store-resume")
        defer { removeTemporary(work) }
        let storeB = try Self.prepare(work + "/b", pineappleOrders: 5)
        let dataA = work + "/a"
        let serverA = try ExecutableServer(["--data", dataA])
        let storeA = try Self.storeID(of: serverA, stop: false)
        #expect(storeA != storeB)
        let shop = client(serverA)
        defer { shop.close() }
        let log = StreamLog(shop.stock())
        for _ in 0..<2 { _ = try await shop.order("mango") }
        #expect(await settles { log.lastSeq == 2 })
        let state = try HTTPClient.get(port: serverA.httpPort, "/state")
        #expect(String(decoding: state.body, as: UTF8.self).contains("\"seq\":2,\"store\":\"\(storeA)\""))
        let stream = try EventStreamClient(port: serverA.httpPort)
        #expect(try stream.event().id == "2", "an id is the bare seq")
        stream.close()
        serverA.stop()

        let serverB: ExecutableServer
        if restoreBackup {
            try FileManager.default.removeItem(atPath: dataA)
            try FileManager.default.copyItem(atPath: work + "/b", toPath: dataA)
            serverB = try ExecutableServer.restart(["--data", dataA], port: serverA.port)
        } else {
            serverB = try ExecutableServer.restart(["--data", work + "/b"], port: serverA.port)
        }
        defer { serverB.stop() }
        let fullB = "EVENT STOCK seq=5 strawberry=10 banana=10 pineapple=0 kiwi=10 mango=10"

        // TCP: naming A gets B's whole state; naming nothing gets B's changes after 2, as today.
        let line = try serverB.client()
        #expect(line.greeting?.contains(" store=\(storeB) ") == true, "\(line.greeting ?? "")")
        #expect(try line.command("SINCE 2 store=\(storeA)") == "OK SINCE 2 5")
        #expect(try line.readLine() == fullB)
        #expect(try line.command("SINCE 2 store=\(storeB)") == "OK SINCE 2 5")
        #expect(try line.readLine() == "EVENT STOCK seq=3 pineapple=4", "its own store resumes with the changes")
        let older = try serverB.client()
        #expect(try older.command("SINCE 2") == "OK SINCE 2 5")
        #expect(try older.readLine() == "EVENT STOCK seq=3 pineapple=4", "a client without the id keeps today's behaviour")

        // The event stream: a resume naming A, as the pages send it (the store in the URL, the
        // browser's Last-Event-ID a bare seq) or in the id, gets the full state; B's own store
        // or a bare seq with no store resumes as today.
        for (target, id) in [("/events?store=\(storeA)", "2"), ("/events", "\(storeA):2")] {
            let resumed = try EventStreamClient(port: serverB.httpPort, lastEventID: id, target: target)
            let first = try resumed.event()
            #expect(first.id == "5", "\(target) \(id)")
            #expect(try first.stock().stock == ["strawberry": 10, "banana": 10, "pineapple": 0, "kiwi": 10, "mango": 10])
            resumed.close()
        }
        for (target, id) in [("/events?store=\(storeB)", "2"), ("/events", "2")] {
            let bare = try EventStreamClient(port: serverB.httpPort, lastEventID: id, target: target)
            #expect(try bare.event().id == "3", "\(target) \(id)")
            bare.close()
        }

        // JuiceClient: the stream that followed A takes B's whole state, as a resync.
        let resynced = await settles {
            log.all.contains { if case .full(let state, resync: true) = $0 { state.seq == 5 && state.stock["pineapple"] == 0 } else { false } }
        }
        #expect(resynced, "\(log.all)")
        let now = try await shop.state()
        #expect(now.seq == 5 && now.stock == ["strawberry": 10, "banana": 10, "pineapple": 0, "kiwi": 10, "mango": 10])
        if case .full(let last, _)? = log.all.last(where: { if case .full = $0 { true } else { false } }) {
            #expect(last.stock == now.stock, "the stream's state is not the server's: \(log.all)")
        }
        #expect(!log.all.contains { if case .change(let seq, _, _) = $0 { seq > 2 } else { false } }, "B's changes applied to A's state: \(log.all)")
    }

    /// A stopped store at `directory` with `pineappleOrders` orders of pineapple made; returns its id.
    private static func prepare(_ directory: String, pineappleOrders: Int) throws -> String {
        let server = try ExecutableServer(["--data", directory])
        let line = try server.client()
        for _ in 0..<pineappleOrders { #expect(try line.command("ORDER pineapple").hasPrefix("OK ORDER")) }
        return try storeID(of: server)
    }

    /// The id in the server's greeting (the server is stopped after, unless `stop` is false).
    private static func storeID(of server: ExecutableServer, stop: Bool = true) throws -> String {
        defer { if stop { server.stop() } }
        let greeting = try server.client().greeting ?? ""
        let token = try #require(greeting.split(separator: " ").first { $0.hasPrefix("store=") }, "\(greeting)")
        return String(token.dropFirst(6))
    }
}

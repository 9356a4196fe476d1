import Foundation
import Testing
@testable import JuiceClient

/// What `stock()` yields first, and that `.offline`/`.online` mark real changes of connection
/// only (JuiceClient.stock()'s documented order).
@Suite(.serialized, .onOwnThreads) struct StockStreamOrderTests {
    /// With the server up: `.full`, then the changes; no `.online` for the first sync.
    @Test(.timeLimit(.minutes(2)))
    func aStreamOfAServerThatIsUpStartsWithFullAndNoOnline() async throws {
        let server = try ExecutableServer(["--in-memory"])
        let shop = client(server)
        defer { shop.close() }
        let log = StreamLog(shop.stock())
        _ = try await shop.order("kiwi")
        #expect(await settles { log.lastSeq == 1 })
        #expect(log.all.map(Self.kind) == ["full", "change"], "\(log.all)")
        // A second stream on the same client gets the state it holds, and nothing else.
        let second = StreamLog(shop.stock())
        #expect(await settles { second.lastSeq == 1 })
        _ = try await shop.order("kiwi")
        #expect(await settles { second.lastSeq == 2 })
        #expect(second.all.map(Self.kind) == ["full", "change"], "\(second.all)")
    }

    /// Started while the server is down (the client has already failed to connect), the stream
    /// waits: its first element is `.full` once the server answers. A later outage is reported
    /// as `.offline`, and its end as `.online`.
    @Test(.timeLimit(.minutes(2)))
    func aStreamStartedWhileTheServerIsDownWaitsForFull() async throws {
        let first = try ExecutableServer(["--in-memory"])
        first.stop()
        let shop = client(first)
        defer { shop.close() }
        let log = StreamLog(shop.stock())
        #expect(await settles { shop.engine.queue.sync { shop.engine.attempt } >= 1 }, "the client never tried")
        #expect(log.all.isEmpty, "\(log.all)")
        let server = try ExecutableServer.restart(["--in-memory"], port: first.port)
        #expect(await settles { log.lastSeq != nil })
        #expect(log.all.map(Self.kind) == ["full"], "\(log.all)")

        server.stop()
        #expect(await settles { log.all.contains { Self.kind($0) == "offline" } })
        let again = try ExecutableServer.restart(["--in-memory"], port: first.port)
        defer { again.stop() }
        #expect(await settles { log.all.contains { Self.kind($0) == "online" } })
        let kinds = log.all.map(Self.kind)
        // Offline for as many failed attempts as it took, then back: a new store is a resync.
        #expect(kinds.first == "full" && kinds.dropFirst().first == "offline", "\(kinds)")
        #expect(kinds.drop { $0 != "online" }.dropFirst().allSatisfy { $0 == "full" }, "\(log.all)")
        #expect(kinds.filter { $0 == "online" }.count == 1, "\(kinds)")
    }

    static func kind(_ update: ShopUpdate) -> String {
        switch update {
        case .full: return "full"
        case .change: return "change"
        case .offline: return "offline"
        case .online: return "online"
        }
    }
}

import Foundation
import Glibc
import Testing
@testable import JuiceClient
import JuiceCore

/// Cancellation, close and release: nothing is misrouted, and nothing is left behind.
@Suite(.serialized, .onOwnThreads) struct LifecycleTests {
    /// Tasks cancelled while their calls are in flight (a durable server holds each reply for
    /// its disk sync): each cancelled one throws CancellationError (orderInDoubt for an order
    /// already sent, see below), its reply is read and
    /// dropped, and every other task gets a reply of its own kind (a reply handed to the wrong
    /// caller would not parse as the one it expects). Rounds go on until some reply was dropped.
    @Test(.timeLimit(.minutes(3)))
    func cancelledCallsRepliesAreDroppedNotHandedOn() async throws {
        let work = temporaryDirectory("juice-client-cancel-inflight")
        defer { removeTemporary(work) }
        let server = try ExecutableServer(["--data", work + "/data", "--initial-stock", "100000"])
        let shop = client(server)
        defer { shop.close() }
        var outcomes: [String: Int] = [:]
        for round in 0..<50 where await shop.droppedReplies == 0 {
            let tasks: [Task<String, Never>] = (0..<60).map { i in
                Task {
                    do {
                        if i % 2 == 0 {
                            guard case .made(_, let stock, _) = try await shop.order("kiwi") else { return "not made" }
                            return stock.keys.sorted() == ["kiwi"] ? "order" : "wrong order reply \(stock)"
                        }
                        let state = try await shop.state()
                        return state.juices.count == 7 ? "state" : "wrong state"
                    } catch is CancellationError {
                        return "cancelled"
                    } catch JuiceError.orderInDoubt(let key, _) where key.hasPrefix(shop.engine.configuration.keyPrefix) {
                        return "cancelled"
                    } catch {
                        return "\(error)"
                    }
                }
            }
            try await Task.sleep(nanoseconds: UInt64(1_000_000 * (round % 5)))
            for (i, task) in tasks.enumerated() where i % 3 == 0 { task.cancel() }
            for task in tasks { outcomes[await task.value, default: 0] += 1 }
        }
        #expect(Set(outcomes.keys).isSubset(of: ["order", "state", "cancelled"]), "\(outcomes)")
        #expect(await shop.droppedReplies > 0, "no call was ever cancelled in flight: \(outcomes)")
        // The connection is still in step afterwards.
        guard case .made = try await shop.order("kiwi", count: 2) else { Issue.record("not made"); return }
        #expect(try await shop.state().juices.count == 7)
    }

    /// A call waiting for a server that is down gives up at once when its task is cancelled,
    /// and is never sent later.
    @Test(.timeLimit(.minutes(2)))
    func aCallWaitingForTheServerIsCancelledAtOnceAndNeverSent() async throws {
        let work = temporaryDirectory("juice-client-cancel")
        defer { removeTemporary(work) }
        let server = try ExecutableServer(["--data", work + "/data"])
        let shop = client(server)
        defer { shop.close() }
        let log = StreamLog(shop.stock())
        let synced = await settles { log.lastSeq != nil }
        #expect(synced)
        server.stop()
        // Once the client knows the server is gone, the order waits unsent (sent, a cancelled
        // order would be in doubt instead).
        let offline = await settles { log.all.contains { if case .offline = $0 { true } else { false } } }
        #expect(offline, "\(log.all)")
        let waiting = Task { try await shop.order("banana") }
        try await Task.sleep(nanoseconds: 200_000_000) // let it queue behind the dead connection
        waiting.cancel()
        await #expect(throws: CancellationError.self) { _ = try await waiting.value }
        let again = try ExecutableServer.restart(["--data", work + "/data"], port: server.port)
        #expect(try await shop.stats().ordersServed == 0)
        again.stop()
    }

    /// An order cancelled after it went out may have been applied: it throws orderInDoubt with
    /// its key (a bare CancellationError would lose it), and that key retries it exactly once.
    /// The server dies (its debug hook JUICE_TEST_KILL_AFTER_SYNC) after the order's sync.
    @Test(.timeLimit(.minutes(2)))
    func anOrderCancelledAfterItWasSentIsInDoubtWithItsKey() async throws {
        let crash = try CrashAfterSync("juice-client-cancel-sent")
        let shop = client(crash.server)
        defer { shop.close() }
        #expect(crash.arm())
        let sale = Task { try await shop.order("mango-kiwi", count: 2) }
        #expect(crash.crashed(), "the hook did not kill the server: \(crash.server.log())")
        sale.cancel()
        var doubtful: String? = nil
        do {
            let result = try await sale.value
            Issue.record("a cancelled order came back \(result)")
        } catch JuiceError.orderInDoubt(let key, let reason) {
            doubtful = key
            #expect(reason.contains("cancelled"), "\(reason)")
        }
        let key = try #require(doubtful)
        let second = try crash.restart()
        #expect(try await shop.order("mango-kiwi", count: 2, key: key) == .made(seq: 1, stock: ["mango": 6, "kiwi": 8], amount: 11000))
        #expect(try await shop.stats().ordersServed == 1)
        second.stop()
    }

    /// close() and releasing the client leave no descriptor (counted in /proc/self/fd), and end
    /// the streams.
    @Test(.timeLimit(.minutes(3)))
    func closeAndReleaseLeaveNoDescriptorAndNoStream() async throws {
        let server = try ExecutableServer(["--in-memory"])
                do {
            let shop = client(server)
            let log = StreamLog(shop.stock())
            _ = try await shop.order("banana")
            #expect(await settles { log.lastSeq == 1 })
            #expect(await settles { descriptors(connectedTo: server.port) == 1 }, "\(String(describing: descriptors(connectedTo: server.port)))")
            shop.close()
            #expect(await log.finished())
            await #expect(throws: JuiceError.closed) { _ = try await shop.state() }
        }
        let settled1 = await settles { descriptors(connectedTo: server.port) == 0 }
        #expect(settled1, "descriptors: \(String(describing: descriptors(connectedTo: server.port))) still open after close")

        var released: StreamLog? = nil
        do {
            let shop = client(server)
            released = StreamLog(shop.stock())
            _ = try await shop.state()
        } // the client is released here
        #expect(await released?.finished() == true)
        let settled2 = await settles { descriptors(connectedTo: server.port) == 0 }
        #expect(settled2, "descriptors: \(String(describing: descriptors(connectedTo: server.port))) still open after release")
    }
}

import Foundation
import Glibc
import Testing
import JuiceClient
import JuiceCore

/// Orders and the stock stream across a server killed or restarted under them.
@Suite(.serialized, .onOwnThreads) struct RecoveryTests {
    /// The worst moment: the order is durable on the server, which dies (SIGKILL, from the
    /// server's debug-only hook JUICE_TEST_KILL_AFTER_SYNC) before its reply is sent. The
    /// client reconnects to the restarted server and sends the same key: sold goes up once.
    @Test(.timeLimit(.minutes(3)))
    func anOrderWhoseServerDiedAfterTheSyncIsAppliedExactlyOnce() async throws {
        let crash = try CrashAfterSync("juice-client-kill")
        let shop = client(crash.server)
        defer { shop.close() }
        _ = try await shop.order("mango-kiwi") // a sale before the crash, answered normally
        #expect(try await shop.stats().sold[6] == 1)

        #expect(crash.arm())
        let sale = Task { try await shop.order("mango-kiwi", count: 2) }
        #expect(crash.crashed(), "the hook did not kill the server: \(crash.server.log())")
        let second = try crash.restart()

        let result = try await sale.value
        guard case .made(let seq, let stock, _) = result else {
            Issue.record("the order was not made: \(result)")
            return
        }
        #expect(seq == 2 && stock == ["mango": 4, "kiwi": 7])
        let stats = try await shop.stats()
        #expect(stats.sold[6] == 3, "mango-kiwi sold \(stats.sold[6]): not exactly 1 + 2")
        #expect(stats.ordersServed == 2 && stats.seq == 2)
        second.stop()
    }

    /// Without a server to come back, an order throws once the bound passes, saying it may have
    /// been applied and with which key to retry.
    @Test(.timeLimit(.minutes(2)))
    func anOrderPastTheBoundThrowsWithItsKey() async throws {
        let server = try ExecutableServer(["--in-memory"])
        let shop = client(server, retryBound: 1)
        defer { shop.close() }
        _ = try await shop.state()
        server.kill9()
        do {
            _ = try await shop.order("banana", key: "till1:42")
            Issue.record("an order with no server did not throw")
        } catch let error as JuiceError {
            // Never sent (the connection was known dead) or sent and lost: either way the key is
            // what the caller retries with, and it is said.
            switch error {
            case .orderInDoubt(let key, _): #expect(key == "till1:42")
            case .unreachable: break
            default: Issue.record("unexpected \(error)")
            }
        }
    }

    /// stock() across a SIGTERM restart (resumed with SINCE) and a restart on a wiped store (a
    /// full state marked resync): no gap, no repeat, and it ends on the server's own STATS seq.
    @Test(.timeLimit(.minutes(3)))
    func stockStreamIsGapFreeAcrossRestarts() async throws {
        let work = temporaryDirectory("juice-client-stock")
        defer { removeTemporary(work) }
        var server = try ExecutableServer(["--data", work + "/data"])
        let port = server.port
        let watcher = client(server), cashier = client(server)
        defer { watcher.close(); cashier.close() }
        let log = StreamLog(watcher.stock()), second = StreamLog(watcher.stock())

        /// A few changes, then the stream must reach the server's own STATS seq.
        func changesReachTheStream() async throws {
            for i in 0..<4 {
                if i % 2 == 0 { _ = try await cashier.order("banana") } else { _ = try await cashier.order("kiwi") }
                _ = try await cashier.order("mango") // out of stock soon: refusals are no changes
            }
            let seq = try await cashier.stats().seq
            let settled = await settles { log.lastSeq == Int(seq) }
            #expect(settled, "stream: \(log.all)")
        }
        try await changesReachTheStream()
        server.stop()
        server = try ExecutableServer.restart(["--data", work + "/data"], port: port)
        try await changesReachTheStream()

        server.stop()
        server = try ExecutableServer.restart(["--data", work + "/wiped"], port: port)
        // Let the watcher see the wiped store first, so the sale below is a change it streams.
        #expect(await settles { log.all.contains { if case .full(_, resync: true) = $0 { true } else { false } } })
        _ = try await cashier.order("banana")
        let truth = try await cashier.state()
        let settled3 = await settles { log.all.last == .change(seq: 1, changed: ["banana": 8], state: truth) }
        #expect(settled3, "stream: \(log.all)")

        // The second stream is fed by its own consumer: it may be a moment behind the first.
        let secondSettled = await settles { second.all.last == .change(seq: 1, changed: ["banana": 8], state: truth) }
        #expect(secondSettled, "second stream: \(second.all)")
        for stream in [log, second] {
            var seq: Int? = nil
            var resyncs = 0
            for update in stream.all {
                switch update {
                case .full(let state, let resync):
                    #expect(resync == (seq != nil), "only the first full state is not a resync")
                    if resync { resyncs += 1 }
                    seq = state.seq
                case .change(let next, _, _):
                    #expect(next == (seq ?? -1) + 1, "a gap or a repeat: \(String(describing: seq)) then \(next)")
                    seq = next
                case .offline, .online:
                    break
                }
            }
            #expect(resyncs == 1, "the wiped store is the one resync: \(stream.all)")
            #expect(seq == truth.seq)
        }
        server.stop()
    }
}

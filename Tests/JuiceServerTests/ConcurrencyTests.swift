import Foundation
import JuiceCore
import JuiceDomain
import JuiceStorage
import JuicePlatform
import JuiceLog
import JuiceLoop
import JuiceServices
import JuiceLine
import JuiceHTTP
@testable import JuiceServer
import Testing

/// Many clients at once, pipelining, broadcast order, and clients that vanish.
@Suite(.onOwnThreads) struct ConcurrencyTests {
    @Test func fiftyCashiersRaceForTheLastStockWithoutOverselling() async throws {
        // Fifty from one address: more than an address's default share of connections.
        try await RunningServer.with({ $0.maxClientsPerAddress = nil }) { s in
            let setup = try s.client()
            // 30 mango and 20 kiwi: exactly 15 mango-kiwi (2 mango + 1 kiwi each) can be made.
            #expect(try setup.command("SET mango 30").hasPrefix("OK SET"))
            #expect(try setup.command("SET kiwi 20").hasPrefix("OK SET"))
            let clients = try (0..<50).map { _ in try s.client() }
            // Everyone sends first, then everyone reads: the orders really race.
            for c in clients { try c.send("ORDER mango-kiwi") }
            var served = 0
            var refused = 0
            for c in clients {
                let reply = try c.reply()
                if reply.hasPrefix("OK ORDER") { served += 1 } else if reply.hasPrefix("ERR OUT_OF_STOCK") { refused += 1 }
            }
            #expect(served == 15 && refused == 35)
            #expect(try setup.command("STOCK") == "OK STOCK seq=17 strawberry=10 banana=10 pineapple=10 kiwi=5 mango=0")
        }
    }

    @Test func fiveHundredPipelinedCommandsAnswerInOrder() async throws {
        try await RunningServer.with { s in
            let c = try s.client()
            #expect(try c.command("EVENTS OFF") == "OK EVENTS off")
            var payload: [UInt8] = []
            for _ in 0..<250 { payload += Array("RESTOCK kiwi 1\r\nSTOCK kiwi\r\n".utf8) }
            try c.sendRaw(payload)
            for i in 0..<250 {
                #expect(try c.reply() == "OK RESTOCK seq=\(i + 1) kiwi=\(11 + i)")
                #expect(try c.reply() == "OK STOCK seq=\(i + 1) kiwi=\(11 + i)")
            }
        }
    }

    @Test func broadcastReachesTwentyClientsInSeqOrderWithNoGaps() async throws {
        let s = try await RunningServer.start { $0.initialStock = 1000 }
        let displays = try (0..<20).map { _ in try s.client() }
        for d in displays { #expect(try d.command("PING") == "OK PONG") }
        let cashiers = try (0..<4).map { _ in try s.client() }
        for c in cashiers { #expect(try c.command("EVENTS OFF") == "OK EVENTS off") }
        // Four cashiers order concurrently; every display must see seq 1...100 in order.
        let replies = Locked<[String]>([])
        onThreads(cashiers.count) { n in
            for _ in 0..<25 {
                let reply = (try? cashiers[n].command("ORDER banana")) ?? "<no reply>"
                replies.update { $0.append(reply) }
            }
        }
        // Each order was taken, once: the replies carry seq 1...100 between them.
        let taken = replies.get.filter { $0.hasPrefix("OK ORDER banana 1 seq=") }
        #expect(taken.count == 100, "not taken: \(replies.get.filter { !$0.hasPrefix("OK ORDER banana 1 seq=") }.prefix(3))")
        #expect(taken.compactMap { values($0)["seq"] }.sorted() == Array(1...100))
        for d in displays {
            var seqs: [Int] = []
            for _ in 0..<100 { seqs.append(values(try d.nextEvent())["seq"] ?? -1) }
            #expect(seqs == Array(1...100))
        }
        await s.stop()
    }

    @Test func theClientThatOrdersGetsItsReplyBeforeItsEvent() async throws {
        try await RunningServer.with { s in
            let c = try s.client()
            try c.send("ORDER banana")
            #expect(try c.readLine() == "OK ORDER banana 1 seq=1 banana=8 amount=4000")
            #expect(try c.readLine() == "EVENT STOCK seq=1 banana=8")
        }
    }

    @Test func eventsOffStopsEventsAndOnResumesThem() async throws {
        try await RunningServer.with { s in
            let a = try s.client()
            let b = try s.client()
            #expect(try b.command("EVENTS OFF") == "OK EVENTS off")
            #expect(try a.command("ORDER banana").hasPrefix("OK ORDER"))
            #expect(try b.command("PING") == "OK PONG")
            #expect(b.events.isEmpty)
            #expect(try b.command("EVENTS ON") == "OK EVENTS on")
            #expect(try a.command("ORDER banana").hasPrefix("OK ORDER"))
            #expect(try b.nextEvent() == "EVENT STOCK seq=2 banana=6")
        }
    }

    @Test func aClientThatDisconnectsMidLineHurtsNobody() async throws {
        try await RunningServer.with { s in
            let watcher = try s.client()
            do {
                let c = try s.client()
                try c.sendRaw(Array("ORDER mango-ki".utf8))  // no newline, then gone
            }
            do {
                let c = try s.client()
                try c.sendRaw(Array("ORDER banana\r\nORDER ban".utf8))
            }
            // The complete line was applied; the partial one never was.
            #expect(try watcher.nextEvent() == "EVENT STOCK seq=1 banana=8")
            let left = await eventually { await s.server.clientCount == 1 }
            let count = await s.server.clientCount
            #expect(left, "clients: \(count)")
            #expect(try watcher.command("STOCK") == "OK STOCK seq=1 strawberry=10 banana=8 pineapple=10 kiwi=10 mango=10")
        }
    }

    @Test func halfClosedClientStillGetsItsReplies() async throws {
        try await RunningServer.with { s in
            let c = try s.client()
            try c.sendRaw(Array("STOCK kiwi\nORDER banana\n".utf8))
            shutdown(c.fd, Int32(SHUT_WR))
            #expect(try c.reply() == "OK STOCK seq=0 kiwi=10")
            #expect(try c.reply() == "OK ORDER banana 1 seq=1 banana=8 amount=4000")
            #expect(c.closedByServer())
        }
    }
}


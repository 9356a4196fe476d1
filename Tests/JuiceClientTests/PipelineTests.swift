import Foundation
import Testing
import JuiceClient
import JuiceCore

/// Many tasks on one client, against the real server: every reply reaches its own caller.
@Suite(.onOwnThreads) struct PipelineTests {
    /// Single-fruit juices: an order's reply names exactly its juice's fruit.
    static let juices = ["banana", "kiwi", "pineapple", "mango", "strawberry"]

    @Test(.timeLimit(.minutes(3)))
    func twentyTasksTimesFiftyOrdersEachGetTheirOwnReply() async throws {
        let server = try ExecutableServer(["--in-memory", "--initial-stock", "100000"])
        let shop = client(server)
        defer { shop.close() }
        let seqs = try await withThrowingTaskGroup(of: [Int].self) { group in
            for task in 0..<20 {
                group.addTask {
                    var seqs: [Int] = []
                    for i in 0..<50 {
                        let juice = Self.juices[(task + i) % Self.juices.count]
                        let result = try await shop.order(juice, count: 1 + task % 3)
                        guard case .made(let seq, let stock, _) = result, Array(stock.keys) == [juice] else {
                            throw TestError("task \(task) order \(i) of \(juice) got \(result)")
                        }
                        seqs.append(seq)
                        // Interleave other kinds of call: a reply handed to the wrong caller
                        // would not parse as the reply it expects.
                        if i % 10 == 0 {
                            do {
                                _ = try await shop.order("dragonfruit")
                                throw TestError("an unknown juice was sold")
                            } catch JuiceError.unknownJuice(let text) {
                                #expect(text.contains("dragonfruit"))
                            }
                            #expect(try await shop.state().seq >= seq)
                        }
                    }
                    return seqs
                }
            }
            return try await group.reduce(into: []) { $0 += $1 }
        }
        #expect(seqs.sorted() == Array(1...1000))
        let stats = try await shop.stats()
        #expect(stats.ordersServed == 1000)
        #expect(stats.keys == 1000) // every order carried its own key
    }

    @Test func refusalsAreTypedAndCarryTheServersText() async throws {
        let server = try ExecutableServer(["--in-memory"], environment: ["JUICE_MANAGER_TOKEN": "s3cret"])
        // The cashier is a paired till: the server has a token, so it sells only to tills.
        let cashier = try await pairedClient(server, token: "s3cret"), manager = client(server, token: "s3cret")
        defer { cashier.close(); manager.close() }

        #expect(try await cashier.order("strawberry-banana", count: 2) == .outOfStock(needs: ["strawberry": 20], has: ["strawberry": 10]))
        await #expect(throws: JuiceError.forbidden("RESTOCK needs a manager: send AUTH <token> first")) {
            try await cashier.restock("mango", 5)
        }
        await #expect(throws: JuiceError.badArgument("count must be a whole number from 1 to 1000")) { _ = try await cashier.order("mango", count: 1001) }
        #expect(try await manager.restock("mango", 5) == (seq: 1, total: 15))
        #expect(try await manager.set("kiwi", 2) == (seq: 2, total: 2))
        do {
            try await manager.set("durian", 1)
            Issue.record("SET durian was accepted")
        } catch JuiceError.unknownFruit(let text) {
            #expect(text.contains("durian"))
        }
        guard case .made(seq: 3, let stock, _) = try await cashier.order("mango-kiwi", count: 2) else {
            Issue.record("mango-kiwi 2 not made")
            return
        }
        #expect(stock == ["mango": 11, "kiwi": 0])
        let state = try await cashier.state()
        #expect(state.seq == 3 && state.stock["mango"] == 11 && state.canMake("mango-kiwi") == 0 && state.canMake("mango") == 3)
        #expect(state.aliases.juice["mango-kiwi"] == ["망키쥬스"])
    }

    @Test func aKeyGivenByTheCallerIsAppliedOnce() async throws {
        let server = try ExecutableServer(["--in-memory"])
        let shop = client(server)
        defer { shop.close() }
        let first = try await shop.order("banana", count: 2, key: "till9:0001")
        #expect(try await shop.order("banana", count: 2, key: "till9:0001") == first)
        await #expect(throws: JuiceError.self) { _ = try await shop.order("banana", count: 3, key: "till9:0001") }
        #expect(try await shop.state().stock["banana"] == 6)
    }

    @Test func everyProtocolCodeMapsToItsError() {
        var cases: [JuiceError] = []
        for code in ErrorCode.allCases {
            let error = JuiceError(code: code.rawValue, message: "needs mango=3")
            if case .server = error { Issue.record("\(code) is not typed") }
            // Read back: the same code and words, and the line the server sent.
            #expect(error.refusal?.code == code.rawValue && error.refusal?.message == "needs mango=3", "\(code)")
            #expect(error.description == "\(code.rawValue) needs mango=3")
            cases.append(error)
        }
        #expect(Set(cases.map(\.description)).count == ErrorCode.allCases.count, "two codes share a case")
        #expect(JuiceError(code: "READ_ONLY", message: "disk full") == .readOnly("disk full"))
        #expect(JuiceError.closed.refusal == nil && JuiceError.orderInDoubt(key: "k", reason: "r").refusal == nil)
        #expect(JuiceError(code: "LATER_CODE", message: "m") == .server(code: "LATER_CODE", message: "m"))
    }
}

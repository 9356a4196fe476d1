import Testing
import JuiceClient
import JuiceCore

/// Caller text that is not what the server reads as one token (a CR/LF, a space) is refused
/// with `.badArgument` before anything is sent: otherwise it adds commands of its own, on a
/// manager's connection too, and every later reply goes to the wrong caller (issue 19 review).
@Suite(.onOwnThreads) struct ArgumentTests {
    /// The message of the `.badArgument` that `body` throws, or a note of what it did instead.
    static func refusal(_ body: () async throws -> Void) async -> String {
        do {
            try await body()
            return "not refused"
        } catch JuiceError.badArgument(let message) {
            return message
        } catch {
            return "refused otherwise: \(error)"
        }
    }

    /// A server whose manager token is "s3cret", and a client that gives it `token`.
    static func manager(token: String) throws -> (ExecutableServer, JuiceClient) {
        let server = try ExecutableServer(["--in-memory"], environment: ["JUICE_MANAGER_TOKEN": "s3cret"])
        return (server, client(server, token: token))
    }

    @Test(.timeLimit(.minutes(2)))
    func callerTextThatIsNotOneTokenIsRefusedAndNothingIsSent() async throws {
        let (server, manager) = try Self.manager(token: "s3cret")
        defer { server.stop(); manager.close() }

        let smuggled = await Self.refusal { _ = try await manager.order("banana\r\nSET mango 0\r\nORDER banana") }
        #expect(smuggled.contains("may not contain spaces, control characters"), "\(smuggled)")
        let badKey = await Self.refusal { _ = try await manager.order("banana", key: "k1\r\nSET mango 0") }
        #expect(badKey.hasPrefix("key must be 1 to 64 characters"), "\(badKey)")
        #expect(await Self.refusal { _ = try await manager.order("banana", key: "two words") }.hasPrefix("key must"))
        #expect(await Self.refusal { _ = try await manager.order("banana", key: "") }.hasPrefix("key must"))
        #expect(await Self.refusal { _ = try await manager.order("") }.contains("empty"))
        #expect(await Self.refusal { _ = try await manager.order("banana", count: 0) } == "count must be a whole number from 1 to 1000")
        #expect(await Self.refusal { try await manager.restock("mango\r\nSET kiwi 0", 5) }.contains("the fruit"))
        #expect(await Self.refusal { try await manager.restock("mango", 0) } == "amount must be a whole number from 1 to 1000000000")
        #expect(await Self.refusal { try await manager.set("kiwi\nSET mango 0", 1) }.contains("the fruit"))
        #expect(await Self.refusal { try await manager.set("kiwi", -1) } == "amount must be a whole number from 0 to 1000000000")

        // Nothing reached the server, and the connection is still in step: each reply is its caller's.
        let state = try await manager.state()
        #expect(state.seq == 0 && state.stock["mango"] == 10 && state.stock["kiwi"] == 10, "\(state.stock) seq=\(state.seq)")
        #expect(try await manager.order("banana") == .made(seq: 1, stock: ["banana": 8], amount: 4000))
        #expect(try await manager.set("kiwi", 4) == (seq: 2, total: 4))
        #expect(try await manager.stats().ordersServed == 1)
    }

    /// A manager token with a CR/LF would run a command as manager on every connection: it is
    /// never sent, and RESTOCK/SET say why.
    @Test(.timeLimit(.minutes(2)))
    func aTokenThatIsNotOneWordIsNeverSent() async throws {
        let (server, manager) = try Self.manager(token: "s3cret\r\nSET mango 0")
        defer { server.stop(); manager.close() }
        #expect(await Self.refusal { try await manager.restock("mango", 1) }.contains("manager token"))
        let state = try await manager.state()
        #expect(state.seq == 0 && state.stock["mango"] == 10, "\(state.stock) seq=\(state.seq)")
        // Not signed in as anyone (the server has a token): an order is refused, as a stranger's.
        await #expect(throws: JuiceError.self) { _ = try await manager.order("kiwi") }
        #expect(try await manager.state().seq == 0)
    }
}

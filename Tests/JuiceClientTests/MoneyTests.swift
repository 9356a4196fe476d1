import Foundation
import Glibc
import Testing
import JuiceClient

/// Money from JuiceClient's side (issue 33), against the real server: a sale's amount, the
/// menu's prices, and voids (a till's own, another till's refused, a keyed void retried through
/// a crash applied once).
@Suite(.serialized, .onOwnThreads) struct MoneyTests {
    static let token = "s3cret"

    /// The built-in menu is priced in KRW: `prices()` says what a sale will cost before the tap,
    /// and the sale's result carries what it did cost. A menu without prices has neither.
    @Test(.timeLimit(.minutes(2)))
    func aSaleCarriesItsAmountAndThePricesSayItBeforeTheTap() async throws {
        let server = try ExecutableServer(["--in-memory"])
        defer { server.stop() }
        let shop = client(server)
        defer { shop.close() }
        let prices = try await shop.prices()
        #expect(prices.currency?.code == "KRW" && prices.currency?.minorDigits == 0)
        #expect(prices.byJuice.count == 7 && prices.byJuice["mango-kiwi"] == 5500)
        let quoted = try #require(prices.amount("mango-kiwi", count: 2))
        #expect(quoted == 11_000 && prices.format(quoted) == "₩11,000")
        #expect(prices.amount("dragonfruit") == nil)
        let sale = try await shop.order("mango-kiwi", count: 2)
        #expect(sale == .made(seq: 1, stock: ["mango": 6, "kiwi": 8], amount: quoted))
        #expect("\(sale)" == "made (seq 1): kiwi=8 mango=6 left, amount 11000")

        let work = temporaryDirectory("juice-client-unpriced")
        defer { removeTemporary(work) }
        let menu = work + "/menu.json"
        let unpriced = #"{"fruits":[{"name":"lemon"}],"juices":[{"name":"lemonade","recipe":[{"fruit":"lemon","amount":2}]}]}"#
        #expect(FileManager.default.createFile(atPath: menu, contents: Data(unpriced.utf8)))
        let plain = try ExecutableServer(["--in-memory", "--menu", menu])
        defer { plain.stop() }
        let stand = client(plain)
        defer { stand.close() }
        #expect(try await stand.prices() == .none)
        #expect("\(Prices.none)" == "no prices" && Prices.none.format(100) == nil)
        #expect(try await stand.order("lemonade") == .made(seq: 1, stock: ["lemon": 8]))
    }

    /// A paired till voids its own sale: the fruit goes back, the amount is reversed, and the
    /// answer names the sale. Another till may not void it; a second void of it, or of a sale
    /// that does not exist, is refused with its own error; the manager voids any sale.
    @Test(.timeLimit(.minutes(2)))
    func aTillVoidsItsOwnSaleAndNotAnotherTills() async throws {
        // A clock that stands still: a void is of today's sales, and the sale must not become
        // yesterday's (at the shop's day start) before it.
        let clock = try StillClock()
        let server = try ExecutableServer(["--in-memory"], environment: clock.environment.merging(["JUICE_MANAGER_TOKEN": Self.token]) { $1 })
        defer { server.stop() }
        let front = try await pairedClient(server, token: Self.token)
        defer { front.close() }
        let back = try await pairedClient(server, token: Self.token)
        defer { back.close() }
        guard case .made(let sale, _, let amount) = try await front.order("mango-kiwi", count: 2) else {
            Issue.record("not made")
            return
        }
        #expect(sale == 1 && amount == 11_000)

        do {
            try await back.void(sale: sale, reason: .wrongJuice)
            Issue.record("a till voided another till's sale")
        } catch JuiceError.forbidden(let message) {
            #expect(message.contains("not made by this till"), "\(message)")
        }
        let voided = try await front.void(sale: sale, reason: .wrongJuice)
        #expect(voided == VoidResult(seq: 2, sale: 1, juice: "mango-kiwi", count: 2, amount: 11_000, reason: .wrongJuice,
                                     stock: ["mango": 10, "kiwi": 10]))
        #expect("\(voided)" == "voided sale 1 (mango-kiwi 2, wrong-juice) at seq 2: kiwi=10 mango=10")
        await #expect(throws: JuiceError.self) { try await front.void(sale: sale, reason: .other) }
        do { try await front.void(sale: sale, reason: .other) } catch let error as JuiceError {
            guard case .alreadyVoided = error else { Issue.record("\(error)"); return }
            #expect(error.refusal?.code == "ALREADY_VOIDED" && "\(error)".contains("voided at seq=2"), "\(error)")
        }
        do { try await front.void(sale: 99, reason: .other) } catch let error as JuiceError {
            guard case .noSuchSale = error else { Issue.record("\(error)"); return }
        }

        guard case .made(let backSale, _, _) = try await back.order("kiwi") else { Issue.record("not made"); return }
        let manager = client(server, token: Self.token)
        defer { manager.close() }
        let byManager = try await manager.void(sale: backSale, reason: .customerLeft)
        #expect(byManager.sale == backSale && byManager.amount == 4500 && byManager.stock == ["kiwi": 10])
        let state = try await front.state()
        #expect(state.stock["mango"] == 10 && state.stock["kiwi"] == 10 && state.seq == 4)
    }

    /// The worst moment for a void: journaled, and the server killed before its answer. The
    /// client sends it again with its key to the restarted server and gets the one answer
    /// (dup); sent again by the caller with the same key it changes nothing.
    @Test(.timeLimit(.minutes(3)))
    func aKeyedVoidRetriedThroughACrashIsAppliedOnce() async throws {
        let crash = try CrashAfterSync("juice-client-void-kill")
        let shop = client(crash.server)
        defer { shop.close() }
        guard case .made(let sale, _, _) = try await shop.order("mango-kiwi", count: 2) else { Issue.record("not made"); return }

        #expect(crash.arm())
        let void = Task { try await shop.void(sale: sale, reason: .customerLeft, key: "till1:v1") }
        #expect(crash.crashed(), "the hook did not kill the server: \(crash.server.log())")
        let second = try crash.restart()
        defer { second.stop() }
        let voided = try await void.value
        #expect(voided.seq == 2 && voided.sale == sale && voided.stock == ["mango": 10, "kiwi": 10], "\(voided)")
        let again = try await shop.void(sale: sale, reason: .customerLeft, key: "till1:v1")
        #expect(again == voided)
        let state = try await shop.state()
        #expect(state.seq == 2 && state.stock["mango"] == 10 && state.stock["kiwi"] == 10, "\(state)")
    }

    /// What cannot be a void is refused before anything is sent.
    @Test func aVoidThatCannotBeIsRefusedUnsent() async throws {
        let shop = JuiceClient(configuration: .init(port: 1))
        defer { shop.close() }
        for (sale, key) in [(0, "k-1"), (-3, "k-1"), (1, "no spaces")] {
            do {
                try await shop.void(sale: sale, reason: .other, key: key)
                Issue.record("void \(sale) key \(key) was sent")
            } catch let error as JuiceError {
                guard case .badArgument = error else { Issue.record("\(error)"); continue }
            }
        }
        #expect(String(reflecting: JuiceError.voidInDoubt(key: "k-1", reason: "gone")).hasPrefix("JuiceError.voidInDoubt: the void may"))
    }
}

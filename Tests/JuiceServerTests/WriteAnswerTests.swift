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

/// HTTP's JSON for a write's outcome, byte for byte as the HTTP wire has always answered it
/// (the twin of the line reply: `OK ORDER mango-kiwi 2 seq=7 mango=6 kiwi=8`).
@Suite(.onOwnThreads) struct WriteAnswerTests {
    let answers = WriteAnswer(menu: .standard)
    let kiwi = 3, mango = 4

    func body(_ outcome: WriteOutcome, keyed: Bool = false) -> String {
        String(decoding: answers.response(outcome, keyed: keyed).body, as: UTF8.self)
    }

    func order(_ juice: String, _ count: Int, key: String? = nil) -> OrderRequest {
        OrderRequest(juice: Menu.standard.juiceIndex(juice)!, count: count, key: key)
    }

    @Test func appliedAndDuplicateOrders() {
        let change = Change(seq: 7, kind: .order(order("mango-kiwi", 2)), touched: [FruitValue(fruit: mango, value: 6), FruitValue(fruit: kiwi, value: 8)])
        #expect(body(.applied(change)) == #"{"ok":true,"juice":"mango-kiwi","count":2,"seq":7,"stock":{"mango":6,"kiwi":8},"dup":false}"#)
        let one = Change(seq: 3, kind: .order(order("mango", 1, key: "k")), touched: [FruitValue(fruit: mango, value: 7)])
        #expect(body(.duplicate(of: .applied(one)), keyed: true) == #"{"ok":true,"juice":"mango","count":1,"seq":3,"stock":{"mango":7},"dup":true}"#)
        #expect(answers.response(.applied(change), keyed: false).status == .ok)
    }

    @Test func restockSaysDupOnlyWhenKeyed() {
        let change = Change(seq: 2, kind: .restock(fruit: kiwi, amount: 3), touched: [FruitValue(fruit: kiwi, value: 13)])
        #expect(body(.applied(change)) == #"{"ok":true,"seq":2,"stock":{"kiwi":13}}"#)
        #expect(body(.applied(change), keyed: true) == #"{"ok":true,"seq":2,"stock":{"kiwi":13},"dup":false}"#)
        #expect(body(.duplicate(of: .applied(change)), keyed: true) == #"{"ok":true,"seq":2,"stock":{"kiwi":13},"dup":true}"#)
    }

    @Test func outOfStockNamesWhatWasShort() {
        let refused = WriteOutcome.outOfStock(order("strawberry-banana", 2), have: [10, 1])
        let response = answers.response(.duplicate(of: refused), keyed: true)
        #expect(response.status == .conflict)
        #expect(String(decoding: response.body, as: UTF8.self)
                == #"{"ok":false,"error":"OUT_OF_STOCK","message":"needs strawberry=20 banana=2 has strawberry=10 banana=1","needs":{"strawberry":20,"banana":2},"has":{"strawberry":10,"banana":1},"dup":true}"#)
    }

    @Test func unavailableIs503WithRetryAfter() {
        let full = answers.response(.unavailable(.keyMemoryFull(.addressFull(retryAfterSeconds: 30))), keyed: true)
        #expect(full.status == .serviceUnavailable)
        #expect(full.extraHeaders.first { $0.0 == "Retry-After" }?.1 == "30")
        let disk = answers.response(.unavailable(.readOnly(reason: "disk full")), keyed: false)
        #expect(String(decoding: disk.body, as: UTF8.self) == #"{"ok":false,"error":"READ_ONLY","message":"disk full"}"#)
        #expect(disk.extraHeaders.first { $0.0 == "Retry-After" }?.1 == "1")
        #expect(answers.response(.overLimit(fruit: kiwi, stock: 10, adding: 999_999_991), keyed: false).status == .conflict)
        #expect(answers.response(.keyReused(key: "k", first: .order(juice: mango, count: 1)), keyed: true).status == .conflict)
    }
}

import Testing
@testable import juice_bench

/// How a till reads an order's answer: both protocols reduce to the same answer, `dup` is
/// recognised, and "not now" is told apart from "no".
@Suite(.onOwnThreads) struct ChaosReplyTests {
    @Test func lineRepliesAndHTTPAnswersReduceToTheSameAnswer() {
        let made = OrderAnswer.made(seq: 7, stock: ["mango": 6, "kiwi": 8])
        #expect(OrderReply.line("OK ORDER mango-kiwi 2 seq=7 mango=6 kiwi=8") == .definite(made, dup: false))
        #expect(OrderReply.line("OK ORDER mango-kiwi 2 seq=7 mango=6 kiwi=8 dup") == .definite(made, dup: true))
        let json = #"{"ok":true,"juice":"mango-kiwi","count":2,"seq":7,"stock":{"mango":6,"kiwi":8},"dup":true}"#
        #expect(OrderReply.http(status: 200, retryAfter: nil, body: Array(json.utf8)) == .definite(made, dup: true))

        let refused = OrderAnswer.refused(code: "OUT_OF_STOCK", message: "needs strawberry=20 has strawberry=10")
        #expect(OrderReply.line("ERR OUT_OF_STOCK needs strawberry=20 has strawberry=10 dup") == .definite(refused, dup: true))
        let refusal = #"{"ok":false,"error":"OUT_OF_STOCK","message":"needs strawberry=20 has strawberry=10","needs":{"strawberry":20},"has":{"strawberry":10}}"#
        #expect(OrderReply.http(status: 409, retryAfter: nil, body: Array(refusal.utf8)) == .definite(refused, dup: false))
    }

    /// With prices an order's answer carries its amount, and a voided sale's key, sent again,
    /// names the void (`voided=`, `"voided"`); a void's answer reduces the same over both.
    @Test func amountsVoidedSalesAndVoidsReduceTheSameOverBothProtocols() {
        let made = OrderAnswer.made(seq: 1, stock: ["mango": 6, "kiwi": 8], amount: 11000)
        #expect(OrderReply.line("OK ORDER mango-kiwi 2 seq=1 mango=6 kiwi=8 amount=11000") == .definite(made, dup: false))
        #expect(OrderReply.line("OK ORDER mango-kiwi 2 seq=1 mango=6 kiwi=8 amount=11000 voided=2 dup") == .definite(made, dup: true, voided: 2))
        let json = #"{"ok":true,"juice":"mango-kiwi","count":2,"seq":1,"stock":{"mango":6,"kiwi":8},"amount":11000,"voided":2,"dup":true}"#
        #expect(OrderReply.http(status: 200, retryAfter: nil, body: Array(json.utf8)) == .definite(made, dup: true, voided: 2))

        let voided = VoidAnswer.voided(seq: 4, sale: 1, stock: ["mango": 8, "kiwi": 9], amount: 11000)
        #expect(VoidReply.line("OK VOID mango-kiwi 2 seq=4 mango=8 kiwi=9 sale=1 amount=11000 reason=wrong-juice dup") == .definite(voided, dup: true))
        let body = #"{"ok":true,"juice":"mango-kiwi","count":2,"sale":1,"reason":"wrong-juice","seq":4,"stock":{"mango":8,"kiwi":9},"amount":11000,"dup":false}"#
        #expect(VoidReply.http(status: 200, retryAfter: nil, body: Array(body.utf8)) == .definite(voided, dup: false))
        #expect(VoidReply.line("OK VOID kiwi 1 seq=3 kiwi=9 sale=2 reason=other") == .definite(.voided(seq: 3, sale: 2, stock: ["kiwi": 9], amount: nil), dup: false))
        // A refusal is an answer (reported by the checker), "not now" is retried, junk is a fault.
        #expect(VoidReply.line("ERR NO_SUCH_SALE no sale of today's business day has seq=9")
                == .definite(.refused(code: "NO_SUCH_SALE", message: "no sale of today's business day has seq=9"), dup: false))
        let refusal = #"{"ok":false,"error":"ALREADY_VOIDED","message":"sale seq=1 was voided at seq=2"}"#
        #expect(VoidReply.http(status: 409, retryAfter: nil, body: Array(refusal.utf8))
                == .definite(.refused(code: "ALREADY_VOIDED", message: "sale seq=1 was voided at seq=2"), dup: false))
        guard case .retryLater = VoidReply.line("ERR READ_ONLY disk full") else { Issue.record("not retried"); return }
        #expect(VoidReply.line("ERR AUTH_FAILED unknown till credential") == .unexpected("ERR AUTH_FAILED unknown till credential"))
        #expect(VoidReply.line("OK VOID kiwi 1 seq=3 kiwi=9") == .unexpected("OK VOID kiwi 1 seq=3 kiwi=9"))
    }

    @Test func busyAndReadOnlyAreRetriedAndAnythingElseIsAFault() {
        guard case .retryLater = OrderReply.line("ERR BUSY the journal is still growing; try again in a moment"),
              case .retryLater = OrderReply.line("ERR READ_ONLY disk full: cannot grow the journal (No space left on device)"),
              case .retryLater(_, let after) = OrderReply.http(status: 503, retryAfter: 1,
                                                               body: Array(#"{"ok":false,"error":"SHUTTING_DOWN","message":"x"}"#.utf8)) else {
            Issue.record("not retried")
            return
        }
        #expect(after == 1)
        #expect(OrderReply.line("ERR KEY_REUSED key k was used for banana 1") == .unexpected("ERR KEY_REUSED key k was used for banana 1"))
        #expect(OrderReply.line("OK ORDER banana") == .unexpected("OK ORDER banana"))
        guard case .unexpected = OrderReply.http(status: 400, retryAfter: nil, body: Array(#"{"ok":false,"error":"BAD_ARGUMENT","message":"x"}"#.utf8)) else {
            Issue.record("a 400 is no answer to a keyed order")
            return
        }
        #expect(ChaosTill.code(of: "ERR BUSY too many keys") == "BUSY")
        #expect(ChaosTill.code(of: #"503 {"ok":false,"error":"READ_ONLY","message":"disk full"}"#) == "503 READ_ONLY")
    }

    @Test func theServersStartLinesGiveBothPorts() {
        let log = "juice-server listening on 127.0.0.1:40001\njuice-server board on http://127.0.0.1:40002/\n"
        #expect(ServerLog.ports(in: log)! == (40001, 40002))
        #expect(ServerLog.ports(in: "x juice-server listening on 127.0.0.1:1\n") == nil)
    }
}

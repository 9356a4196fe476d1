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

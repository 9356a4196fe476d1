import JuiceCore
import JuiceTestSupport
import Testing

/// The byte form of `WriteReplyJSON.answer` (the `POST /orders` hot path) must answer exactly
/// what the String form answers: same outcome, same bytes. Checked on fixed expected answers,
/// on every kind of reply the store writes, and on seeded random lines built from the tokens
/// where the two could part ways (signs, overflow, escapes, non-ASCII, odd spacing).
@Suite(.onOwnThreads) struct WriteReplyJSONBytesTests {
    /// What `HTTPWrites` did before the byte form: decode, drop the line end, String form.
    private func stringForm(_ reply: [UInt8]) -> (WriteReplyJSON.Outcome, [UInt8]) {
        var line = String(decoding: reply, as: UTF8.self)
        while line.last?.isNewline == true { line.removeLast() }
        let (outcome, json) = WriteReplyJSON.answer(toReply: line)
        return (outcome, Array(json.utf8))
    }

    private func byteForm(_ line: String) -> (outcome: WriteReplyJSON.Outcome, json: String) {
        let (outcome, json) = WriteReplyJSON.answer(toReply: Array((line + "\r\n").utf8))
        return (outcome, String(decoding: json, as: UTF8.self))
    }

    private func expectSame(_ reply: [UInt8], _ comment: Comment? = nil) {
        let (oldOutcome, oldJSON) = stringForm(reply)
        let (newOutcome, newJSON) = WriteReplyJSON.answer(toReply: reply)
        #expect(newOutcome == oldOutcome && newJSON == oldJSON,
                "\(String(decoding: reply, as: UTF8.self).debugDescription): \(String(decoding: newJSON, as: UTF8.self)) vs \(String(decoding: oldJSON, as: UTF8.self))")
    }

    @Test func answersTheContractsJSON() {
        #expect(byteForm("OK ORDER mango-kiwi 2 seq=7 mango=6 kiwi=8").json
                == #"{"ok":true,"juice":"mango-kiwi","count":2,"seq":7,"stock":{"mango":6,"kiwi":8},"dup":false}"#)
        #expect(byteForm("OK ORDER mango 1 seq=3 mango=7 dup").json
                == #"{"ok":true,"juice":"mango","count":1,"seq":3,"stock":{"mango":7},"dup":true}"#)
        #expect(byteForm("OK RESTOCK seq=2 kiwi=13").json == #"{"ok":true,"seq":2,"stock":{"kiwi":13}}"#)
        #expect(byteForm("OK SET seq=9 mango=0").json == #"{"ok":true,"seq":9,"stock":{"mango":0}}"#)
        let short = byteForm("ERR OUT_OF_STOCK needs strawberry=20 banana=2 has strawberry=10 banana=1 dup")
        #expect(short.outcome == .refused(code: "OUT_OF_STOCK"))
        #expect(short.json == #"{"ok":false,"error":"OUT_OF_STOCK","message":"needs strawberry=20 banana=2 has strawberry=10 banana=1","needs":{"strawberry":20,"banana":2},"has":{"strawberry":10,"banana":1},"dup":true}"#)
        #expect(byteForm("OK ORDER mango 1 seq=3 mango=7").outcome == .ok)
        #expect(byteForm("EVENT STOCK seq=1 mango=2").json
                == #"{"ok":false,"error":"BAD_REQUEST","message":"unexpected reply: EVENT STOCK seq=1 mango=2"}"#)
    }

    /// Every kind of reply a write gets: orders (plain, repeated, a juice of several fruits),
    /// RESTOCK and SET, and every error code, each also as a repeated key's answer.
    @Test func sameAnswerForEveryKindOfReply() {
        var lines = [
            "OK ORDER mango-kiwi 2 seq=7 mango=6 kiwi=8", "OK ORDER strawberry-banana 1000 seq=123456789 strawberry=0 banana=999999000",
            "OK ORDER mango 1 seq=1 mango=1000000000", "OK RESTOCK seq=2 kiwi=13", "OK SET seq=18446744073709551615 mango=5",
            "OK SET seq=4 pineapple=1000000000", "OK RESTOCK", "OK", "OK ORDER mango", "OK ORDER mango 1",
            "ERR OUT_OF_STOCK needs strawberry=20 banana=2 has strawberry=10 banana=1",
            "ERR OUT_OF_STOCK needs mango=2000 kiwi=1000 pineapple=3 has mango=10 kiwi=10 pineapple=0",
            "ERR KEY_REUSED key till7-41 was used for ORDER mango 1", "ERR OVER_LIMIT kiwi would be 1000000005 (max 1000000000)",
        ]
        for code in ErrorCode.allCases {
            lines.append(ProtocolError(code, "a message with = signs and \"quotes\" and spaces").line)
        }
        for line in lines {
            for variant in [line, line + " dup", line + "\r\n", line + " dup\r\n", line + "\n", "  " + line + "   "] {
                expectSame(Array(variant.utf8))
            }
        }
    }

    /// Random lines from the tokens where a byte reader could differ from the String one.
    @Test func sameAnswerOnRandomLines() {
        let tokens = ["OK", "OK", "ORDER", "RESTOCK", "ERR", "OUT_OF_STOCK", "dup", "needs", "has", "seq=", "seq=7", "=", "=5",
                      "mango=", "mango=6", "kiwi=+8", "kiwi=-0", "x=-9223372036854775808", "x=9223372036854775808",
                      "x=99999999999999999999", "1", "007", "+", "-", "\"", "\\", "\t", "\u{01}", "\u{1F}", "\u{7F}", "é",
                      "망고=3", "\u{2028}", "\r", "\n", "\u{0B}", " ", "  ", "a=b=3", "mango-kiwi"]
        var rng = SeededRNG(seed: 18)
        for _ in 0..<3000 {
            let count = Int.random(in: 0...10, using: &rng)
            var line = ""
            for i in 0..<count {
                if i > 0 && Bool.random(using: &rng) { line += " " }
                line += tokens.randomElement(using: &rng)!
            }
            expectSame(Array(line.utf8))
            expectSame(Array((line + "\r\n").utf8))
        }
    }

    /// Bytes that are not UTF-8 take the String form's repair, as before.
    @Test func sameAnswerOnInvalidUTF8() {
        expectSame([UInt8]("OK ORDER ".utf8) + [0xC3, 0x28] + [UInt8](" 1 seq=2 mango=3\r\n".utf8))
        expectSame([UInt8]("OK SET seq=2 ".utf8) + [0xFF] + [UInt8]("=3".utf8))
    }
}

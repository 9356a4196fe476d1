import JuiceCore
import Testing
import JuiceDomain
import JuiceStorage

/// The strict JSON reader the HTTP writes parse their bodies with, and the JSON answer made from
/// a write's line reply.
@Suite(.onOwnThreads) struct JSONReaderTests {
    func parse(_ text: String) -> JSONValue? {
        try? JSONReader.parse(Array(text.utf8)).get()
    }

    @Test func readsWhatTheWritesSend() {
        let order = parse(#" {"juice": "mango-kiwi", "count": 2, "note": [true, null, {"x": -1.5e3}], "k": "딸기\u0041\ud83c\udf53\n"} "#)
        #expect(order?["juice"] == .string("mango-kiwi"))
        #expect(order?["count"]?.integer == 2)
        #expect(order?["note"] == .array([.bool(true), .null, .object([("x", .number("-1.5e3"))])]))
        #expect(order?["k"] == .string("딸기A🍓\n"))
        #expect(parse("{}") == .object([]) && parse("[]") == .array([]) && parse("0") == .number("0"))
        #expect(parse(#"{"count": 2.0}"#)?["count"]?.integer == nil)
        #expect(parse(#"{"count": 99999999999999999999}"#)?["count"]?.integer == nil)
    }

    @Test(arguments: [
        "", " ", "{", "}", #"{"a":1,}"#, "[1,]", #"{"a" 1}"#, #"{a:1}"#, "01", "+1", "1.", ".5", "1e", "-",
        #""\x""#, "\"a\u{1}b\"", #""\ud800""#, #""\udc00x""#, "tru", "nul", "{} {}", "[1] x", "NaN", "'a'",
        String(repeating: "[", count: 40) + String(repeating: "]", count: 40),
        // A repeated member, which parsers read differently (first wins, last wins): refused.
        #"{"juice":"banana","juice":"kiwi"}"#, #"{"a":{"b":1,"b":2}}"#,
    ])
    func refusesWhatIsNotStrictJSON(text: String) {
        #expect(parse(text) == nil, "\(text) was taken")
    }

    @Test func refusesInvalidUTF8InAString() {
        #expect((try? JSONReader.parse([0x22, 0xC3, 0x28, 0x22]).get()) == nil)
    }
}

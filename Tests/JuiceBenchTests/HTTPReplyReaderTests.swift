import Testing
@testable import juice_bench

/// The replies of `orders --http-port`: HTTP responses on a keep-alive connection, read with
/// the bytes cut anywhere (a recv() can end mid-head, mid-CRLF, mid-body, or hold several).
@Suite(.onOwnThreads) struct HTTPReplyReaderTests {
    static func response(_ status: String, body: String, close: Bool = false) -> String {
        "HTTP/1.1 \(status)\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: \(body.utf8.count)\r\n"
            + "Cache-Control: no-store\r\n" + (close ? "Connection: close\r\n" : "Connection: keep-alive\r\n") + "\r\n" + body
    }
    static let sold = response("200 OK", body: #"{"ok":true,"juice":"mango-kiwi","count":1,"seq":7,"stock":{"mango":6,"kiwi":8},"dup":false}"#)
    static let refused = response("409 Conflict", body: #"{"ok":false,"error":"OUT_OF_STOCK","message":"needs mango=2 has mango=1"}"#)
    static let lastOne = response("200 OK", body: #"{"ok":true}"#, close: true)
    static let three = Array((sold + refused + lastOne).utf8)
    static let expected = [
        HTTPReplyReader.Reply(status: 200, closes: false, statusLine: ""),
        HTTPReplyReader.Reply(status: 409, closes: false, statusLine: "HTTP/1.1 409 Conflict"),
        HTTPReplyReader.Reply(status: 200, closes: true, statusLine: ""),
    ]

    func read(_ bytes: [UInt8], cutAt cuts: [Int]) -> ([HTTPReplyReader.Reply], HTTPReplyReader.Outcome) {
        var reader = HTTPReplyReader()
        var replies: [HTTPReplyReader.Reply] = []
        var start = 0
        for end in cuts.filter({ $0 > 0 && $0 < bytes.count }) + [bytes.count] where end >= start {
            let outcome = bytes[start..<end].withUnsafeBytes { reader.feed($0) { replies.append($0); return true } }
            if outcome != .complete { return (replies, outcome) }
            start = end
        }
        return (replies, .complete)
    }

    @Test func threeRepliesInOneRead() {
        let (replies, outcome) = read(Self.three, cutAt: [])
        #expect(outcome == .complete && replies == Self.expected)
    }

    @Test func everyCutGivesTheSameReplies() {
        for cut in 1..<Self.three.count {
            let (replies, outcome) = read(Self.three, cutAt: [cut])
            #expect(outcome == .complete && replies == Self.expected, "cut at \(cut)")
        }
        let (replies, _) = read(Self.three, cutAt: Array(1..<Self.three.count))   // a byte at a time
        #expect(replies == Self.expected)
    }

    @Test func aReplyWithoutABodyAndHTTP10Closes() {
        let bytes = Array("HTTP/1.1 204 No Content\r\nContent-Length: 0\r\n\r\nHTTP/1.0 200 OK\r\ncontent-length: 2\r\n\r\n{}".utf8)
        let (replies, outcome) = read(bytes, cutAt: [])
        #expect(outcome == .complete)
        #expect(replies.map(\.status) == [204, 200] && replies.map(\.closes) == [false, true])
    }

    @Test func whatIsNotAnAnswerWithALengthStopsTheRun() {
        let cases = [
            "OK ORDER mango-kiwi 1 seq=1\r\n\r\n",                               // the line protocol's port
            "HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n",                     // no length
            "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n",            // chunked
            "HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n",
        ]
        for text in cases {
            let (replies, outcome) = read(Array(text.utf8), cutAt: [])
            #expect(replies.isEmpty)
            guard case .malformed = outcome else { Issue.record("\(text.debugDescription) was read as \(outcome)"); continue }
        }
        let endless = Array(("HTTP/1.1 200 OK\r\nX: " + String(repeating: "a", count: HTTPReplyReader.maxHead)).utf8)
        guard case .malformed = read(endless, cutAt: [100]).1 else { Issue.record("an endless head was accepted"); return }
    }

    @Test func theRequestIsATillsPostWithALength() {
        let request = httpPost(path: "/orders", body: #"{"juice":"banana"}"#, host: Endpoint(host: "127.0.0.1", port: 7879))
        #expect(request == "POST /orders HTTP/1.1\r\nHost: 127.0.0.1:7879\r\nContent-Type: application/json\r\n"
                + "Content-Length: 18\r\n\r\n{\"juice\":\"banana\"}")
    }
}

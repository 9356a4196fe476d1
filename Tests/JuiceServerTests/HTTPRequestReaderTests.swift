import Testing
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

/// The HTTP request head reader on its own, fed whole, byte by byte and in random cuts: the
/// same verdict whatever the cut, bounded, and quick to refuse what cannot be HTTP.
@Suite(.onOwnThreads) struct HTTPRequestReaderTests {
    /// Feeds `bytes` in pieces and returns the first verdict that is not `.incomplete`.
    static func read(_ bytes: [UInt8], cuts: [Int]? = nil) -> HTTPRequestReader.Outcome {
        var reader = HTTPRequestReader()
        var start = 0
        var pieces: [Range<Int>] = []
        for end in (cuts ?? []) + [bytes.count] where end > start && end <= bytes.count {
            pieces.append(start..<end)
            start = end
        }
        for piece in pieces {
            let outcome = Array(bytes[piece]).withUnsafeBytes { reader.feed($0) }
            if outcome != .incomplete { return outcome }
        }
        return .incomplete
    }

    /// Whole, byte by byte, and three seeded random cuttings must agree.
    static func everyCut(_ text: String) -> HTTPRequestReader.Outcome {
        let bytes = Array(text.utf8)
        let whole = read(bytes)
        #expect(read(bytes, cuts: Array(1..<max(1, bytes.count))) == whole, "byte by byte")
        for seed in [1, 2, 3] as [UInt64] {
            var rng = SeededRNG(seed: seed)
            let cuts = (0..<8).map { _ in Int(rng.next() % UInt64(max(1, bytes.count))) }.sorted()
            #expect(read(bytes, cuts: cuts) == whole, "cut at \(cuts)")
        }
        return whole
    }

    @Test func aBrowserRequestIsReadWithItsHeaders() throws {
        let outcome = Self.everyCut("GET /events?x=1 HTTP/1.1\r\nHost: 127.0.0.1:7879\r\nAccept: text/event-stream\r\nLast-Event-ID:  42 \r\n\r\n")
        guard case .complete(let request) = outcome else {
            Issue.record("not complete: \(outcome)")
            return
        }
        #expect(request.method == "GET" && request.path == "/events" && request.query == "x=1" && request.minorVersion == 1)
        #expect(request.header("last-event-id") == "42")
        #expect(request.header("accept") == "text/event-stream")
        #expect(request.header("cookie") == nil)
    }

    @Test func bareLineFeedsAndHTTP10AreAccepted() {
        guard case .complete(let request) = Self.everyCut("HEAD / HTTP/1.0\nUser-Agent: curl\n\n") else {
            Issue.record("not complete")
            return
        }
        #expect(request.method == "HEAD" && request.minorVersion == 0 && request.header("user-agent") == "curl")
    }

    @Test(arguments: [
        ("\u{16}\u{03}\u{01}\u{02}\u{00}\u{01}", HTTPStatus.badRequest),   // a TLS ClientHello
        ("PING\r\n", .badRequest),                                          // our line protocol
        ("GET / HTTP/2.0\r\n\r\n", .versionNotSupported),
        ("GET /a b HTTP/1.1\r\n\r\n", .badRequest),
        ("GET http://x/ HTTP/1.1\r\n\r\n", .badRequest),
        ("GET / HTTP/1.1\r\n folded: header\r\n\r\n", .badRequest),
        ("GET / HTTP/1.1\r\nNo colon here\r\n\r\n", .badRequest),
        ("GET / HTTP/1.1\r\nX: a\u{01}b\r\n\r\n", .badRequest),
        ("get / HTTP/1.1\r\n\r\n", .badRequest),
    ])
    func whatCannotBeARequestIsRefused(text: String, status: HTTPStatus) {
        guard case .refused(let got, _) = Self.everyCut(text) else {
            Issue.record("\(text.debugDescription) was not refused")
            return
        }
        #expect(got == status, "\(text.debugDescription)")
    }

    /// Junk is refused at its first line, not after a deadline or 8 KiB.
    @Test func aNonRequestFirstLineIsRefusedBeforeTheHeadEnds() {
        #expect(Self.read(Array("PING\n".utf8)) != .incomplete)
        #expect(Self.read([0x16, 0x03]) != .incomplete)
    }

    @Test func aHeadOverEightKiBIsRefusedAndNothingMoreIsKept() {
        let big = "GET / HTTP/1.1\r\n" + String(repeating: "X-Filler: " + String(repeating: "a", count: 100) + "\r\n", count: 100)
        guard case .refused(let status, _) = Self.everyCut(big) else {
            Issue.record("an over-long head was not refused")
            return
        }
        #expect(status == .headerFieldsTooLarge)
        var reader = HTTPRequestReader()
        let chunk = Array(String(repeating: "a", count: 4096).utf8)
        _ = Array("GET / HTTP/1.1\r\nX: ".utf8).withUnsafeBytes { reader.feed($0) }
        for _ in 0..<100 { _ = chunk.withUnsafeBytes { reader.feed($0) } }
        #expect(reader.buffer.count <= HTTPRequestReader.maxHeadBytes + 4)
    }

    @Test func tooManyHeaderFieldsAreRefused() {
        let many = "GET / HTTP/1.1\r\n" + String(repeating: "A: b\r\n", count: 65) + "\r\n"
        guard case .refused(let status, _) = Self.everyCut(many) else {
            Issue.record("65 header fields were accepted")
            return
        }
        #expect(status == .headerFieldsTooLarge)
    }
}

import JuiceCore
import JuiceTestSupport
import Testing
@testable import juice_bench

/// The event-stream side of `events`: the HTTP head and the SSE blocks, read through the same
/// line splitter the engine uses, with the bytes cut anywhere (a recv() can end mid-line,
/// mid-CRLF, mid-block).
@Suite(.onOwnThreads) struct EventStreamReaderTests {
    static let head = "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream; charset=utf-8\r\n"
        + "Cache-Control: no-store\r\nConnection: keep-alive\r\n\r\n"
    /// What juice-server sends: retry, the full state (id 7), a ping, then three changes.
    static let stream = head + "retry: 1000\n\n"
        + "id: 7\nevent: stock\ndata: {\"seq\":7,\"stock\":{\"strawberry\":15,\"banana\":10,\"mango\":9,\"kiwi\":8}}\n\n"
        + ": ping\n\n"
        + "id: 8\nevent: stock\ndata: {\"seq\":8,\"stock\":{\"mango\":7,\"kiwi\":7}}\n\n"
        + "id: 9\nevent: stock\ndata: {\"seq\":9,\"stock\":{\"mango\":5,\"kiwi\":6}}\n\n"
        + ": ping\n\nid: 10\nevent: stock\ndata: {\"seq\":10,\"stock\":{\"mango\":3,\"kiwi\":5}}\n\n"
    static let messages: [EventStreamReader.Outcome] = [.message(id: 7), .message(id: 8), .message(id: 9), .message(id: 10)]

    /// Feeds `bytes` in reads of the given sizes (the rest in a last read) and returns every
    /// outcome other than `.none`.
    func read(_ bytes: [UInt8], cutAt cuts: [Int]) -> [EventStreamReader.Outcome] {
        var reader = EventStreamReader()
        var partial = ByteQueue(capacity: 16)
        defer { partial.deallocate() }
        var outcomes: [EventStreamReader.Outcome] = []
        var start = 0
        for end in cuts.filter({ $0 > 0 && $0 < bytes.count }) + [bytes.count] where end >= start {
            let split = bytes[start..<end].withUnsafeBytes { chunk in
                LineSplitter.split(chunk.baseAddress!, count: chunk.count, carrying: &partial, maxLineLength: 1 << 20) {
                    let outcome = reader.line($0, length: $1)
                    if outcome != .none && outcome != .emptyBlock { outcomes.append(outcome) }
                    return true
                }
            }
            #expect(split == .complete)
            start = end
        }
        return outcomes
    }

    func read(_ text: String, cutAt cuts: [Int] = []) -> [EventStreamReader.Outcome] {
        read(Array(text.utf8), cutAt: cuts)
    }

    @Test func aWholeStreamInOneReadGivesEveryMessageWithItsId() {
        #expect(read(Self.stream) == Self.messages)
    }

    @Test func oneByteAtATime() {
        let bytes = Array(Self.stream.utf8)
        #expect(read(bytes, cutAt: Array(1..<bytes.count)) == Self.messages)
    }

    @Test func cutInTwoAtEveryPosition() {
        let bytes = Array(Self.stream.utf8)
        var wrong: [Int] = []
        for cut in 1..<bytes.count where read(bytes, cutAt: [cut]) != Self.messages { wrong.append(cut) }
        #expect(wrong.isEmpty, "cuts at \(wrong.prefix(10)) lose or invent messages")
    }

    @Test func cutIntoRandomPieces() {
        let bytes = Array(Self.stream.utf8)
        var rng = SeededRNG(seed: 42)
        for _ in 0..<300 {
            let cuts = (0..<Int.random(in: 1...12, using: &rng)).map { _ in Int.random(in: 1..<bytes.count, using: &rng) }.sorted()
            #expect(read(bytes, cutAt: cuts) == Self.messages, "cuts \(cuts)")
        }
    }

    @Test func crlfLineEndingsAndFieldsWithoutTheSpaceAreSSE() {
        let text = Self.head + "id:3\r\ndata:x\r\n\r\nid: 4\r\ndata\r\n\r\n"
        #expect(read(text) == [.message(id: 3), .message(id: 4)])
    }

    @Test func blocksWithoutDataAreNotMessagesAndAMissingOrBadIdIsNil() {
        // `id:` alone (no data) dispatches nothing; the id does not leak into the next block.
        let text = Self.head + "id: 5\n\nretry: 1000\n\n: comment\n\nevent: stock\ndata: {}\n\nid: 6x\ndata: {}\n\n"
            + "id: 99999999999999999999\ndata: {}\n\n"
        #expect(read(text) == [.message(id: nil), .message(id: nil), .message(id: nil)])
    }

    /// juice-server's ids name the store: `<store>:<seq>`; the seq is the id a run checks.
    @Test func anIdNamingTheStoreGivesItsSeq() {
        let text = Self.head + "id: 5f0c9a1e7b2d4c68:7\ndata: {}\n\nid: 5f0c9a1e7b2d4c68:x\ndata: {}\n\n"
        #expect(read(text) == [.message(id: 7), .message(id: nil)])
    }

    @Test func headerNamesAreCaseInsensitive() {
        #expect(read("HTTP/1.0 200 OK\r\ncontent-TYPE:text/event-stream\r\n\r\nid: 1\ndata: {}\n\n") == [.message(id: 1)])
    }

    @Test(arguments: [
        ("HTTP/1.1 404 Not Found\r\nContent-Type: text/plain\r\n\r\n", "HTTP/1.1 404 Not Found"),
        ("HTTP/1.1 503 Service Unavailable\r\n\r\n", "HTTP/1.1 503 Service Unavailable"),
        ("EVENT HELLO juice-server 1.0.0 protocol=1\r\n", "EVENT HELLO juice-server 1.0.0 protocol=1"),
        ("HTTP/1.1 2000\r\n", "HTTP/1.1 2000"),
        ("HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n", "the response is not Content-Type: text/event-stream"),
        ("HTTP/1.1 200 OK\r\n\r\n", "the response is not Content-Type: text/event-stream"),
    ])
    func anythingButA200EventStreamIsRefused(response: String, reason: String) {
        #expect(read(response).first == .refused(reason))
    }

    @Test func aLineLongerThanTheLimitIsReported() {
        var partial = ByteQueue(capacity: 16)
        defer { partial.deallocate() }
        let bytes = Array(repeating: UInt8(ascii: "a"), count: 100)
        let split = bytes.withUnsafeBytes {
            LineSplitter.split($0.baseAddress!, count: 100, carrying: &partial, maxLineLength: 64) { _, _ in true }
        }
        #expect(split == .overlong)
    }

    @Test func theHandlerCanStopTheSplit() {
        var partial = ByteQueue(capacity: 16)
        defer { partial.deallocate() }
        var lines = 0
        let split = Array("a\nb\nc\n".utf8).withUnsafeBytes {
            LineSplitter.split($0.baseAddress!, count: $0.count, carrying: &partial, maxLineLength: 64) { _, _ in
                lines += 1
                return lines < 2
            }
        }
        #expect(split == .stopped && lines == 2)
    }
}

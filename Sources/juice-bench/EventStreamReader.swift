/// The request an event-stream watcher sends, as a browser's EventSource would (no
/// Last-Event-ID: the stream starts with the full state).
let eventStreamRequest = "GET /events HTTP/1.1\r\nHost: x\r\nAccept: text/event-stream\r\n\r\n"

/// Reads the answer to `eventStreamRequest` one line at a time (lines come from
/// `LineSplitter`, without their line ending): the HTTP response head, then Server-Sent
/// Events blocks. Only what the check needs is kept: whether a block was a message, and its
/// `id:` (the seq). Comments (`: ping`), `retry:` and `event:` lines are skipped. Pure and
/// byte-level: one per connection, so 10,000 streams cost little.
struct EventStreamReader {
    enum Outcome: Equatable {
        /// Nothing to act on yet (a head line, a field, a comment, a block without data).
        case none
        /// The server did not answer with a 200 event stream: the status line or the reason.
        case refused(String)
        /// A blank line ended a block that carried data: one message, with its `id:` if it
        /// had a numeric one.
        case message(id: UInt64?)
    }

    private enum Stage { case statusLine, headers, body }
    private var stage = Stage.statusLine
    private var isEventStream = false
    // The block being read.
    private var id: UInt64?
    private var hasData = false

    mutating func line(_ line: UnsafeRawPointer, length: Int) -> Outcome {
        let bytes = UnsafeRawBufferPointer(start: line, count: length)
        switch stage {
        case .statusLine:
            // "HTTP/1.1 200 OK" (or 1.0); anything else (404, 503, a line protocol's
            // greeting) means we are not talking to an event stream.
            guard bytes.starts(with: "HTTP/1.".utf8), length >= 12, bytes[8] == 0x20,
                  bytes[9] == 0x32, bytes[10] == 0x30, bytes[11] == 0x30, length == 12 || bytes[12] == 0x20 else {
                return .refused(String(decoding: bytes.prefix(200), as: UTF8.self))
            }
            stage = .headers
        case .headers:
            if length == 0 {
                guard isEventStream else { return .refused("the response is not Content-Type: text/event-stream") }
                stage = .body
            } else if Self.startsIgnoringCase(bytes, "content-type:") {
                let value = bytes.dropFirst(13).drop { $0 == 0x20 || $0 == 0x09 }
                isEventStream = Self.startsIgnoringCase(UnsafeRawBufferPointer(rebasing: value), "text/event-stream")
            }
        case .body:
            if length == 0 {
                defer { id = nil; hasData = false }
                return hasData ? .message(id: id) : .none
            }
            if bytes[0] == 0x3A { return .none }   // ":" starts a comment
            if bytes.starts(with: "id:".utf8) {
                id = Self.decimal(bytes.dropFirst(3))
            } else if bytes.starts(with: "data:".utf8) || length == 4 && bytes.starts(with: "data".utf8) {
                hasData = true
            }
        }
        return .none
    }

    /// A field's value (one leading space is part of the syntax) as a whole number.
    private static func decimal(_ value: UnsafeRawBufferPointer.SubSequence) -> UInt64? {
        let digits = value.first == 0x20 ? value.dropFirst() : value
        guard !digits.isEmpty, digits.count <= 19 else { return nil }
        var result: UInt64 = 0
        for byte in digits {
            guard byte >= ASCII.zero && byte <= ASCII.nine else { return nil }
            result = result * 10 + UInt64(byte - ASCII.zero)
        }
        return result
    }

    /// Header names are case-insensitive; `prefix` is lowercase ASCII.
    private static func startsIgnoringCase(_ bytes: UnsafeRawBufferPointer, _ prefix: StaticString) -> Bool {
        let count = prefix.utf8CodeUnitCount
        guard bytes.count >= count else { return false }
        let wanted = prefix.utf8Start
        for i in 0..<count where bytes[i] | 0x20 != wanted[i] | 0x20 { return false }
        return true
    }
}

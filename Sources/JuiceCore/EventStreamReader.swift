/// Reads the server's event stream (the answer to `GET /events`) one line at a time, lines
/// given without their line ending: the HTTP response head, then Server-Sent Events blocks,
/// interpreted as a browser's `EventSource` does (`field: value`, one optional space after the
/// colon, `data` lines joined with LF, `:` comments, a blank line ends a block). The inverse of
/// `Wire+Events`, and the one reader of it outside a browser: juice-bench's event watchers and
/// the tests' `EventStreamClient` both read through it.
///
/// Byte-level, and by default keeps only what a load generator needs (whether a block carried
/// data, and its `id` as a seq), so 10,000 streams cost little; `keepsFields` also keeps each
/// block's fields as text (`block`), for tests.
package struct EventStreamReader {
    package enum Outcome: Equatable, Sendable {
        /// Nothing to act on yet (a head line, a field, a comment).
        case none
        /// The server did not answer with a 200 event stream: the status line or the reason.
        case refused(String)
        /// A blank line ended a block that carried data: one message, with its `id:` if it
        /// was a whole number.
        case message(id: UInt64?)
        /// A blank line ended a block without data (comments, `retry:`, an `id:` alone): an
        /// `EventSource` dispatches nothing for it.
        case emptyBlock
    }

    private enum Stage { case statusLine, headers, body }
    private var stage: Stage
    private var isEventStream = false
    private let keepsFields: Bool
    // The block being read.
    private var id: UInt64?
    private var hasData = false
    private var hasLines = false
    private var fields = EventStreamBlock()
    /// With `keepsFields`: the block the last `.message` or `.emptyBlock` ended.
    package private(set) var block = EventStreamBlock()

    /// `readsHead: false` starts at the body, for a caller that read the response head itself.
    package init(readsHead: Bool = true, keepsFields: Bool = false) {
        stage = readsHead ? .statusLine : .body
        self.keepsFields = keepsFields
    }

    package mutating func line(_ text: String) -> Outcome {
        var text = text
        return text.withUTF8 { line(UnsafeRawBufferPointer($0)) }
    }

    package mutating func line(_ start: UnsafeRawPointer, length: Int) -> Outcome {
        line(UnsafeRawBufferPointer(start: start, count: length))
    }

    package mutating func line(_ bytes: UnsafeRawBufferPointer) -> Outcome {
        let length = bytes.count
        switch stage {
        case .statusLine:
            // "HTTP/1.1 200 OK" (or 1.0); anything else (404, 503, a line protocol's
            // greeting) means this is not an event stream.
            guard bytes.starts(with: "HTTP/1.".utf8), length >= 12, bytes[8] == ASCII.space,
                  bytes[9] == 0x32, bytes[10] == 0x30, bytes[11] == 0x30, length == 12 || bytes[12] == ASCII.space else {
                return .refused(String(decoding: bytes.prefix(200), as: UTF8.self))
            }
            stage = .headers
        case .headers:
            if length == 0 {
                guard isEventStream else { return .refused("the response is not Content-Type: text/event-stream") }
                stage = .body
            } else if equalsFoldedPrefix(bytes, Self.contentType) {
                let value = bytes.dropFirst(Self.contentType.count).drop { $0 == ASCII.space || $0 == ASCII.tab }
                isEventStream = equalsFoldedPrefix(UnsafeRawBufferPointer(rebasing: value), Self.eventStreamType)
            }
        case .body:
            return bodyLine(bytes)
        }
        return .none
    }

    private mutating func bodyLine(_ bytes: UnsafeRawBufferPointer) -> Outcome {
        if bytes.isEmpty {
            guard hasLines else { return .none }
            defer { id = nil; hasData = false; hasLines = false; fields = EventStreamBlock() }
            if keepsFields { block = fields }
            return hasData ? .message(id: id) : .emptyBlock
        }
        hasLines = true
        let colon = bytes.firstIndex(of: 0x3A) ?? bytes.count
        var value = bytes[min(colon + 1, bytes.count)...]
        if value.first == ASCII.space { value = value.dropFirst() }
        let name = UnsafeRawBufferPointer(rebasing: bytes[..<colon])
        if colon == 0 {
            if keepsFields { fields.comments.append(String(decoding: value, as: UTF8.self)) }
        } else if name.elementsEqual("id".utf8) {
            // juice-server's ids are `<store>:<seq>` (a bare seq from older servers): the seq.
            id = Self.decimal(value.lastIndex(of: 0x3A).map { value[($0 + 1)...] } ?? value)
            if keepsFields { fields.id = String(decoding: value, as: UTF8.self) }
        } else if name.elementsEqual("data".utf8) {
            hasData = true
            if keepsFields {
                let text = String(decoding: value, as: UTF8.self)
                fields.data = fields.data.map { $0 + "\n" + text } ?? text
            }
        } else if keepsFields && name.elementsEqual("event".utf8) {
            fields.event = String(decoding: value, as: UTF8.self)
        } else if keepsFields && name.elementsEqual("retry".utf8) {
            fields.retry = String(decoding: value, as: UTF8.self)
        }
        return .none
    }

    private static let contentType = Array("content-type:".utf8)
    private static let eventStreamType = Array("text/event-stream".utf8)

    /// A field's value as a whole number (at most 19 digits: it fits a UInt64).
    private static func decimal(_ digits: UnsafeRawBufferPointer.SubSequence) -> UInt64? {
        guard !digits.isEmpty, digits.count <= 19 else { return nil }
        var result: UInt64 = 0
        for byte in digits {
            guard byte >= 0x30 && byte <= 0x39 else { return nil }
            result = result * 10 + UInt64(byte - 0x30)
        }
        return result
    }

    /// Whether `bytes` starts with `lowercase`, ignoring ASCII case (header names).
    private func equalsFoldedPrefix(_ bytes: UnsafeRawBufferPointer, _ lowercase: [UInt8]) -> Bool {
        bytes.count >= lowercase.count && equalsFolded(UnsafeRawBufferPointer(rebasing: bytes[..<lowercase.count]), lowercase)
    }
}

/// One event-stream block as an `EventSource` reads it (kept by `EventStreamReader` with
/// `keepsFields`).
package struct EventStreamBlock: Sendable, Equatable {
    package var id: String?
    package var event: String?
    /// The `data:` lines joined with LF, or nil if the block had none.
    package var data: String?
    package var retry: String?
    /// Comment lines (`: ping`), without the colon and the space after it.
    package var comments: [String] = []

    package init(id: String? = nil, event: String? = nil, data: String? = nil, retry: String? = nil, comments: [String] = []) {
        self.id = id
        self.event = event
        self.data = data
        self.retry = retry
        self.comments = comments
    }

    /// The id's seq: the id is `<store>:<seq>` (or a bare seq, from a server without store ids).
    package var seq: UInt64? { id.flatMap { UInt64($0.split(separator: ":").last ?? "") } }
    /// The store the id names, if it names one.
    package var store: String? {
        guard let id, let colon = id.lastIndex(of: ":") else { return nil }
        return String(id[..<colon])
    }
}

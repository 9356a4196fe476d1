/// Reads the answers to pipelined `POST` requests on one keep-alive connection, bytes as they
/// arrive cut anywhere: a status line, headers up to a blank line, then exactly
/// `Content-Length` bytes of body. Only what the load figures need is kept: the status code,
/// whether the server will close the connection after it (`Connection: close`: a cap on
/// requests per connection, or shutdown), and the status line for an error report. Pure and
/// byte-level, like `EventStreamReader`, so the tests can feed it any split.
struct HTTPReplyReader {
    struct Reply: Equatable {
        var status: Int
        var closes: Bool
        /// The status line, e.g. `HTTP/1.1 409 Conflict`, for a status other than 200 (an
        /// error to report); empty for 200, which is the hot path.
        var statusLine: String
    }

    enum Outcome: Equatable {
        case complete
        /// The bytes are not an HTTP/1.x response with a length: the run cannot go on.
        case malformed(String)
    }

    /// A head longer than this is not an answer to our request.
    static let maxHead = 16 * 1024

    /// A head that began in an earlier read (most heads arrive whole and never touch it).
    private var head: [UInt8] = []
    private var bodyLeft = 0
    private var inBody = false
    private var reply = Reply(status: 0, closes: false, statusLine: "")

    /// Calls `handle` for each complete reply in `bytes`; `handle` returns false to stop (the
    /// connection closed). The rest of a reply is kept for the next call.
    mutating func feed(_ bytes: UnsafeRawBufferPointer, _ handle: (Reply) -> Bool) -> Outcome {
        var i = 0
        while i < bytes.count {
            if inBody {
                let take = min(bodyLeft, bytes.count - i)
                bodyLeft -= take
                i += take
                if bodyLeft == 0 {
                    inBody = false
                    if !handle(reply) { return .complete }
                }
                continue
            }
            let parsed: Result<(Reply, Int), MalformedHead>
            if head.isEmpty, let end = Self.headEnd(bytes, from: i) {
                parsed = Self.parse(UnsafeRawBufferPointer(rebasing: bytes[i..<end]))
                i = end
            } else {
                // The head is cut between reads: gather it (search only what is new, and the 3
                // bytes before it, which may hold the start of the blank line).
                let before = head.count
                head.append(contentsOf: bytes[i...])
                guard let end = head.withUnsafeBytes({ Self.headEnd($0, from: max(0, before - 3)) }) else {
                    return head.count > Self.maxHead ? .malformed("a response head longer than \(Self.maxHead) bytes") : .complete
                }
                parsed = head.withUnsafeBytes { Self.parse(UnsafeRawBufferPointer(rebasing: $0[..<end])) }
                i += end - before
                head.removeAll(keepingCapacity: true)
            }
            switch parsed {
            case .failure(let error): return .malformed(error.why)
            case .success(let (next, length)):
                reply = next
                if length > 0 {
                    inBody = true
                    bodyLeft = length
                } else if !handle(reply) {
                    return .complete
                }
            }
        }
        return .complete
    }

    /// The index just past the first CR LF CR LF at or after `from`, if any.
    private static func headEnd(_ bytes: UnsafeRawBufferPointer, from: Int) -> Int? {
        var k = from
        while k + 3 < bytes.count {
            if bytes[k + 3] != 10 { k += bytes[k + 3] == 13 ? 1 : 4; continue }
            if bytes[k] == 13 && bytes[k + 1] == 10 && bytes[k + 2] == 13 { return k + 4 }
            k += 1
        }
        return nil
    }

    /// The status, `Content-Length` and `Connection` of a whole head (ending in CR LF CR LF),
    /// read on bytes: this runs once per reply.
    private static func parse(_ head: UnsafeRawBufferPointer) -> Result<(Reply, Int), MalformedHead> {
        let lines = head.split(separator: 10, omittingEmptySubsequences: false).map {
            $0.last == 13 ? $0.dropLast() : $0
        }
        let first = lines[0]
        let text = { String(decoding: first.prefix(200), as: UTF8.self) }
        guard first.count >= 12, first.starts(with: "HTTP/1.".utf8), first[first.startIndex + 8] == 32,
              let status = Self.number(first.dropFirst(9).prefix(3)), status >= 100 else {
            return .failure(MalformedHead("not an HTTP response: \(text())"))
        }
        var length: Int?
        var closes = first[first.startIndex + 7] == UInt8(ascii: "0")
        for line in lines.dropFirst() where !line.isEmpty {
            if Self.hasName(line, "content-length:") {
                guard let n = Self.number(Self.value(line, after: 15)) else {
                    return .failure(MalformedHead("Content-Length: \(String(decoding: line.dropFirst(15), as: UTF8.self))"))
                }
                length = n
            } else if Self.hasName(line, "connection:") {
                closes = Self.value(line, after: 11).split(separator: UInt8(ascii: ",")).contains {
                    let token = $0.drop { $0 == 32 || $0 == 9 }.reversed().drop { $0 == 32 || $0 == 9 }
                    return token.count == 5 && zip(token.reversed(), "close".utf8).allSatisfy { $0 | 0x20 == $1 }
                }
            } else if Self.hasName(line, "transfer-encoding:") {
                return .failure(MalformedHead("a chunked answer (only Content-Length is read)"))
            }
        }
        guard let length else { return .failure(MalformedHead("an answer without Content-Length: \(text())")) }
        return .success((Reply(status: status, closes: closes, statusLine: status == 200 ? "" : text()), length))
    }

    private typealias Line = Slice<UnsafeRawBufferPointer>

    /// Header names are case-insensitive; `name` is lowercase ASCII with its colon.
    private static func hasName(_ line: Line, _ name: StaticString) -> Bool {
        let count = name.utf8CodeUnitCount
        guard line.count >= count else { return false }
        let wanted = name.utf8Start
        var k = 0
        for byte in line.prefix(count) {
            guard byte | 0x20 == wanted[k] | 0x20 else { return false }
            k += 1
        }
        return true
    }

    private static func value(_ line: Line, after nameLength: Int) -> Line {
        line.dropFirst(nameLength).drop { $0 == 32 || $0 == 9 }
    }

    /// 1 to 18 decimal digits, optionally followed by spaces.
    private static func number(_ bytes: Line) -> Int? {
        let digits = bytes.prefix { $0 != 32 && $0 != 9 }
        guard !digits.isEmpty, digits.count <= 18, bytes.dropFirst(digits.count).allSatisfy({ $0 == 32 || $0 == 9 }) else { return nil }
        var n = 0
        for byte in digits {
            guard byte >= 48 && byte <= 57 else { return nil }
            n = n * 10 + Int(byte - 48)
        }
        return n
    }
}

struct MalformedHead: Error, Equatable {
    let why: String
    init(_ why: String) { self.why = why }
}

/// A `POST` a till would send (without the browser's extra headers): HTTP/1.1, so the
/// connection stays open for the next one; no `Origin`, as from a program, not a page.
func httpPost(path: String, body: String, host: Endpoint) -> String {
    "POST \(path) HTTP/1.1\r\nHost: \(host)\r\nContent-Type: application/json\r\n"
        + "Content-Length: \(body.utf8.count)\r\n\r\n\(body)"
}

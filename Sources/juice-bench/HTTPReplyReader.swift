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
        /// The status line, e.g. `HTTP/1.1 409 Conflict` (for the first error's report).
        var statusLine: String
    }

    enum Outcome: Equatable {
        case complete
        /// The bytes are not an HTTP/1.x response with a length: the run cannot go on.
        case malformed(String)
    }

    /// A head longer than this is not an answer to our request.
    static let maxHead = 16 * 1024

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
            head.append(bytes[i])
            i += 1
            let n = head.count
            guard n >= 4, head[n - 1] == 10, head[n - 2] == 13, head[n - 3] == 10, head[n - 4] == 13 else {
                if n > Self.maxHead { return .malformed("a response head longer than \(Self.maxHead) bytes") }
                continue
            }
            switch Self.parse(head) {
            case .failure(let error): return .malformed(error.why)
            case .success(let (parsed, length)):
                head.removeAll(keepingCapacity: true)
                reply = parsed
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

    /// The status, `Content-Length` and `Connection` of a whole head (ending in CR LF CR LF).
    private static func parse(_ head: [UInt8]) -> Result<(Reply, Int), MalformedHead> {
        let text = String(decoding: head, as: UTF8.self)
        var lines = text.split(separator: "\r\n", omittingEmptySubsequences: true)
        guard !lines.isEmpty else { return .failure(MalformedHead("an empty response head")) }
        let statusLine = String(lines.removeFirst())
        let parts = statusLine.split(separator: " ", maxSplits: 2)
        guard parts.count >= 2, parts[0].hasPrefix("HTTP/1."), parts[1].count == 3, let status = Int(parts[1]) else {
            return .failure(MalformedHead("not an HTTP response: \(statusLine.prefix(200))"))
        }
        var length: Int?
        var closes = parts[0] == "HTTP/1.0"
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let name = line[..<colon].lowercased()
            let value = line[line.index(after: colon)...].trimmingCharacters(in: " \t")
            if name == "content-length" {
                guard let n = Int(value), n >= 0 else { return .failure(MalformedHead("Content-Length: \(value)")) }
                length = n
            } else if name == "connection" {
                closes = value.lowercased().split(separator: ",").contains { $0.trimmingCharacters(in: " ") == "close" }
            } else if name == "transfer-encoding" {
                return .failure(MalformedHead("a chunked answer (only Content-Length is read)"))
            }
        }
        guard let length else { return .failure(MalformedHead("an answer without Content-Length: \(statusLine)")) }
        return .success((Reply(status: status, closes: closes, statusLine: statusLine), length))
    }
}

struct MalformedHead: Error, Equatable {
    let why: String
    init(_ why: String) { self.why = why }
}

private extension Substring {
    func trimmingCharacters(in set: String) -> String {
        let drop: (Character) -> Bool = { set.contains($0) }
        return String(self.drop(while: drop).reversed().drop(while: drop).reversed())
    }
}

/// A `POST` a till would send (without the browser's extra headers): HTTP/1.1, so the
/// connection stays open for the next one; no `Origin`, as from a program, not a page.
func httpPost(path: String, body: String, host: Endpoint) -> String {
    "POST \(path) HTTP/1.1\r\nHost: \(host)\r\nContent-Type: application/json\r\n"
        + "Content-Length: \(body.utf8.count)\r\n\r\n\(body)"
}

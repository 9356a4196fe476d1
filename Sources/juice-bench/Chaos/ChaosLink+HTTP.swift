/// An HTTP/1.1 answer as a till needs it: the status, `Retry-After`, whether the server closes
/// the connection after it, and the body (always sent with `Content-Length` by juice-server).
struct HTTPAnswer {
    var status: Int
    var retryAfter: Double?
    var closes: Bool
    var body: [UInt8]
}

extension ChaosLink {
    /// A `POST` as a program sends it (no `Origin`: not from a page), HTTP/1.1 keep-alive.
    static func post(_ path: String, body: String, headers: [(String, String)], host: String) -> String {
        var request = "POST \(path) HTTP/1.1\r\nHost: \(host)\r\nContent-Type: application/json\r\n"
        for (name, value) in headers { request += "\(name): \(value)\r\n" }
        return request + "Content-Length: \(body.utf8.count)\r\n\r\n\(body)"
    }

    /// The next answer: status line, headers up to the blank line, then the body.
    func readHTTPAnswer(timeout: Double) throws(LinkFailure) -> HTTPAnswer {
        let statusLine = try readLine(timeout: timeout)
        let words = statusLine.split(separator: " ", maxSplits: 2)
        guard words.count >= 2, words[0].hasPrefix("HTTP/1."), let status = Int(words[1]) else {
            throw .malformed("not an HTTP status line: \(statusLine.prefix(100))")
        }
        var answer = HTTPAnswer(status: status, retryAfter: nil, closes: words[0] == "HTTP/1.0", body: [])
        var length: Int?
        var headerCount = 0
        while true {
            let line = try readLine(timeout: timeout)
            if line.isEmpty { break }
            headerCount += 1
            guard headerCount < 100, let colon = line.firstIndex(of: ":") else { throw .malformed("header '\(line.prefix(100))'") }
            let name = line[..<colon].lowercased()
            let value = line[line.index(after: colon)...].trimmingSpaces
            switch name {
            case "content-length": length = Int(value)
            case "retry-after": answer.retryAfter = Double(value)
            case "connection": answer.closes = value.lowercased().contains("close")
            default: break
            }
        }
        guard let length, length >= 0, length <= 1 << 20 else { throw .malformed("no usable Content-Length") }
        answer.body = try read(count: length, timeout: timeout)
        return answer
    }
}

extension Substring {
    var trimmingSpaces: String {
        String(drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
    }
}

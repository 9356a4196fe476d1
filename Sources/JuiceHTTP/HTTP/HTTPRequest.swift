import JuiceCore
import JuiceDomain
import JuicePlatform
import JuiceLog
import JuiceLoop
import JuiceServices
/// One HTTP/1.x request head: what the HTTP side needs of it. Header names are lowercased.
package struct HTTPRequest: Equatable {
    package let method: String
    /// The path without its query, e.g. `/events`.
    package let path: String
    package let query: String?
    /// 0 for HTTP/1.0, 1 for HTTP/1.1.
    package let minorVersion: Int
    package let headers: [Header]
    /// The body (`Content-Length` bytes; empty without one).
    package var body: [UInt8] = []

    package struct Header: Equatable {
        /// Lowercased.
        package let name: String
        package let value: String
    }

    /// The value of a header, if present (the first, for a field that may repeat; the ones
    /// that may not are refused when repeated: `HTTPHeadRules`).
    package func header(_ name: String) -> String? {
        headers.first { $0.name == name }?.value
    }
}

/// Reads requests from bytes as they arrive, on bytes (never on Characters), bounded: a head
/// of at most `maxHeadBytes`, then a body of exactly `Content-Length` bytes, at most
/// `maxBodyBytes`. Anything that cannot be HTTP is refused as soon as it shows (a TLS handshake
/// or our line protocol fails on its first bytes, not at a deadline). Bytes after a request
/// (a pipelined next one) wait in the buffer for `next()`, once the request is answered.
package struct HTTPRequestReader {
    package enum Outcome: Equatable {
        case incomplete
        case complete(HTTPRequest)
        /// Answer with this status and close.
        case refused(HTTPStatus, String)
        /// The head was read but its body cannot be (no length, chunked, too large): answer
        /// this request with the status, and close.
        case refusedBody(HTTPRequest, HTTPStatus, String)
    }

    /// The request line and headers together, at most (the usual 8 KiB).
    package static let maxHeadBytes = 8 * 1024
    package static let maxHeaders = 64

    package init() {}
    /// A request body, at most (the writes' JSON is a few dozen bytes).
    package static let maxBodyBytes = 4 * 1024

    package private(set) var buffer: [UInt8] = []
    private var done = false
    /// A head read whose body is still arriving, and the body's length.
    private var head: HTTPRequest?
    private var bodyLength = 0
    /// Whether the request line has been seen whole (and passed), and how far its end was looked for.
    private var firstLineChecked = false
    private var firstLineScanned = 0

    /// Whether any of a request has arrived (for the deadlines: a kept-alive connection is idle
    /// until then).
    package var hasStarted: Bool { !buffer.isEmpty || head != nil }

    package mutating func feed(_ bytes: UnsafeRawBufferPointer) -> Outcome {
        guard !done else { return .incomplete }
        // Reading stops after each complete request until it is answered, so this holds at most
        // what one read brings beyond a request.
        buffer.append(contentsOf: bytes)
        return advance(searchFrom: max(0, buffer.count - bytes.count - 3))
    }

    /// The last request was answered: go on with the bytes after it.
    package mutating func next() -> Outcome {
        done = false
        firstLineChecked = false
        firstLineScanned = 0
        return buffer.isEmpty ? .incomplete : advance(searchFrom: 0)
    }

    private mutating func advance(searchFrom: Int) -> Outcome {
        if let request = head { return takeBody(request) }
        // Fail fast on what cannot be a request line: methods are upper-case letters.
        if let first = buffer.first, !(UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(first) {
            return refuse(.badRequest, "not an HTTP request")
        }
        guard let end = headEnd(from: searchFrom) else {
            if buffer.count > HTTPRequestReader.maxHeadBytes {
                return refuse(.headerFieldsTooLarge, "the request line and headers may hold at most \(HTTPRequestReader.maxHeadBytes) bytes")
            }
            // A complete first line that is not a request line is refused at once. Checked once,
            // looking for its end only in what is new (a head sent a byte at a time stays linear).
            if !firstLineChecked, let lf = buffer[firstLineScanned...].firstIndex(of: 10) {
                firstLineChecked = true
                if case .failure(let error) = Self.requestLine(buffer[..<lf]) { return refuse(error.status, error.message) }
            }
            firstLineScanned = buffer.count
            return .incomplete
        }
        if end > HTTPRequestReader.maxHeadBytes {
            return refuse(.headerFieldsTooLarge, "the request line and headers may hold at most \(HTTPRequestReader.maxHeadBytes) bytes")
        }
        let parsed = Self.parse(buffer[..<end])
        buffer.removeFirst(end)
        switch parsed {
        case .success(let request):
            switch Self.bodyLength(request) {
            case .success(let length):
                bodyLength = length
                return takeBody(request)
            case .failure(let error):
                done = true
                buffer = []
                return .refusedBody(request, error.status, error.message)
            }
        case .failure(let error):
            return refuse(error.status, error.message)
        }
    }

    private mutating func takeBody(_ request: HTTPRequest) -> Outcome {
        guard buffer.count >= bodyLength else {
            head = request
            return .incomplete
        }
        var complete = request
        complete.body = Array(buffer[..<bodyLength])
        buffer.removeFirst(bodyLength)
        head = nil
        done = true
        return .complete(complete)
    }

    /// A body's length: `Content-Length` (digits only; never repeated: `HTTPHeadRules`), at
    /// most `maxBodyBytes`. A `POST` must have one; `Transfer-Encoding` (chunked) is not taken.
    package static func bodyLength(_ request: HTTPRequest) -> Result<Int, ParseError> {
        if request.header("transfer-encoding") != nil {
            return .failure(ParseError(.lengthRequired, "chunked bodies are not taken: send Content-Length"))
        }
        guard let first = request.header("content-length") else {
            return request.method == "POST" ? .failure(ParseError(.lengthRequired, "a POST needs Content-Length")) : .success(0)
        }
        guard !first.isEmpty, first.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }) else {
            return .failure(ParseError("malformed Content-Length"))
        }
        // Too many digits is too large, not an overflow.
        guard first.utf8.count <= 9, let length = Int(first), length <= maxBodyBytes else {
            return .failure(ParseError(.payloadTooLarge, "a body may hold at most \(maxBodyBytes) bytes"))
        }
        return .success(length)
    }

    private mutating func refuse(_ status: HTTPStatus, _ message: String) -> Outcome {
        done = true
        buffer = []
        return .refused(status, message)
    }

    /// The index just past the blank line ending the head (CRLF CRLF, or bare LF LF).
    private func headEnd(from start: Int) -> Int? {
        var i = start
        while i < buffer.count {
            if buffer[i] == 10 {
                if i + 1 < buffer.count && buffer[i + 1] == 10 { return i + 2 }
                if i + 2 < buffer.count && buffer[i + 1] == 13 && buffer[i + 2] == 10 { return i + 3 }
            }
            i += 1
        }
        return nil
    }

    package struct ParseError: Error {
        package let status: HTTPStatus
        package let message: String
        package init(_ status: HTTPStatus, _ message: String) {
            self.status = status
            self.message = message
        }
        package init(_ message: String) {
            self.init(.badRequest, message)
        }
    }

    package static func parse(_ head: ArraySlice<UInt8>) -> Result<HTTPRequest, ParseError> {
        // The lines, each without its CR, and without the empty ones that end the head. Runs
        // once per request: slices of the head, no String until a header is kept.
        var lines: [ArraySlice<UInt8>] = []
        lines.reserveCapacity(8)
        var from = head.startIndex
        while from < head.endIndex {
            let lf = head[from...].firstIndex(of: 10) ?? head.endIndex
            let line = head[from..<lf]
            lines.append(line.last == 13 ? line.dropLast() : line)
            from = lf + 1
        }
        if head.last == 10 { lines.append([]) }
        while lines.last?.isEmpty == true { lines.removeLast() }
        guard let first = lines.first else { return .failure(ParseError("empty request")) }
        let start: (method: String, target: ArraySlice<UInt8>, minor: Int)
        switch requestLine(first) {
        case .success(let s): start = s
        case .failure(let e): return .failure(e)
        }
        guard lines.count - 1 <= maxHeaders else {
            return .failure(ParseError(.headerFieldsTooLarge, "at most \(maxHeaders) header fields"))
        }
        var headers: [HTTPRequest.Header] = []
        for line in lines.dropFirst() {
            guard let first = line.first, first != 32, first != 9 else {
                return .failure(ParseError("folded or empty header line"))
            }
            guard let colon = line.firstIndex(of: UInt8(ascii: ":")), colon > line.startIndex,
                  line[..<colon].allSatisfy(isTokenByte) else {
                return .failure(ParseError("malformed header field"))
            }
            var value = line[(colon + 1)...]
            while let c = value.first, c == 32 || c == 9 { value = value.dropFirst() }
            while let c = value.last, c == 32 || c == 9 { value = value.dropLast() }
            guard value.allSatisfy({ $0 >= 32 && $0 != 127 || $0 == 9 }) else {
                return .failure(ParseError("control character in a header value"))
            }
            // A token is ASCII, so lowercasing its bytes is what `lowercased()` would do.
            let name = String(unsafeUninitializedCapacity: colon - line.startIndex) { out in
                for (i, b) in line[..<colon].enumerated() { out[i] = b >= 65 && b <= 90 ? b | 0x20 : b }
                return colon - line.startIndex
            }
            headers.append(HTTPRequest.Header(name: name, value: String(decoding: value, as: UTF8.self)))
        }
        if let problem = HTTPHeadRules.problem(minorVersion: start.minor, headers: headers) {
            return .failure(ParseError(problem))
        }
        let target = start.target
        let question = target.firstIndex(of: UInt8(ascii: "?"))
        let path = String(decoding: target[..<(question ?? target.endIndex)], as: UTF8.self)
        let query = question.map { String(decoding: target[($0 + 1)...], as: UTF8.self) }
        return .success(HTTPRequest(method: start.method, path: path, query: query, minorVersion: start.minor, headers: headers))
    }

    /// `METHOD SP /target SP HTTP/1.x`.
    package static func requestLine(_ raw: ArraySlice<UInt8>) -> Result<(method: String, target: ArraySlice<UInt8>, minor: Int), ParseError> {
        let line = raw.last == 13 ? raw.dropLast() : raw
        let parts = line.split(separator: 32, omittingEmptySubsequences: false)
        guard parts.count == 3, !parts[0].isEmpty, parts[0].count <= 16, parts[0].allSatisfy(isTokenByte) else {
            return .failure(ParseError("malformed request line"))
        }
        let target = parts[1]
        guard target.first == UInt8(ascii: "/"), target.count <= 2048, target.allSatisfy({ $0 > 32 && $0 < 127 }) else {
            return .failure(ParseError("the target must be a path such as /events"))
        }
        let version = parts[2]
        guard version.count == 8, version.starts(with: "HTTP/".utf8), version[version.startIndex + 6] == UInt8(ascii: ".") else {
            return .failure(ParseError("malformed HTTP version"))
        }
        let major = version[version.startIndex + 5], minor = version[version.startIndex + 7]
        guard major == UInt8(ascii: "1"), minor == UInt8(ascii: "0") || minor == UInt8(ascii: "1") else {
            return .failure(ParseError(.versionNotSupported, "HTTP/1.0 and HTTP/1.1 only"))
        }
        return .success((String(decoding: parts[0], as: UTF8.self), target, Int(minor - UInt8(ascii: "0"))))
    }

    /// RFC 9110 `tchar`.
    /// RFC 9110's token characters besides letters and digits.
    private static let tokenPunctuation: [UInt8] = Array("!#$%&'*+-.^_`|~".utf8)

    package static func isTokenByte(_ b: UInt8) -> Bool {
        switch b {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        default:
            return tokenPunctuation.contains(b)
        }
    }
}

extension HTTPRequest {
    /// Whether it says who it is, so that it is answered (once) even over its client's share:
    /// the route checks the credential, and one that checks out calls
    /// `ConnectionHost.markKnown` (the manager's token, a paired till's `Juice-Till`).
    var carriesCredentials: Bool {
        header("authorization") != nil || header(TillRoutes.header) != nil
    }
}

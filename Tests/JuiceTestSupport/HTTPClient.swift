import Foundation
import JuiceCore
import Glibc

/// One HTTP response as the bytes on the wire showed it: the status line, the header fields in
/// the order sent, and the body (everything after the blank line, up to the server's close).
public struct HTTPReply: Sendable {
    public let statusLine: String
    public let status: Int
    public let headers: [HeaderField]
    public let body: [UInt8]

    public struct HeaderField: Sendable, Equatable {
        public let name: String
        public let value: String
    }

    /// The first value of a header field, by case-insensitive name.
    public func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }

    public var text: String { String(decoding: body, as: UTF8.self) }

    /// The body as JSON (object), parsed by Foundation's parser, not ours.
    public func json() throws -> [String: Any] {
        guard let object = try JSONSerialization.jsonObject(with: Data(body)) as? [String: Any] else {
            throw TestError("not a JSON object: \(text.prefix(200))")
        }
        return object
    }

    /// Splits raw response bytes at the first blank line (CRLF CRLF).
    public static func parse(_ bytes: [UInt8]) throws -> HTTPReply {
        guard let end = bytes.indices.dropLast(3).first(where: { bytes[$0..<$0 + 4].elementsEqual([13, 10, 13, 10]) }) else {
            throw TestError("no complete response head in \(bytes.count) bytes: \(String(decoding: bytes.prefix(200), as: UTF8.self))")
        }
        let lines = String(decoding: bytes[..<end], as: UTF8.self).components(separatedBy: "\r\n")
        let parts = lines[0].split(separator: " ", maxSplits: 2)
        guard parts.count >= 2, parts[0].hasPrefix("HTTP/1."), let status = Int(parts[1]) else {
            throw TestError("not a status line: \(lines[0])")
        }
        let headers = try lines.dropFirst().map { line -> HeaderField in
            guard let colon = line.firstIndex(of: ":") else { throw TestError("not a header field: \(line)") }
            return HeaderField(name: String(line[..<colon]), value: line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
        return HTTPReply(statusLine: lines[0], status: status, headers: headers, body: Array(bytes[(end + 4)...]))
    }
}

/// A raw HTTP client for tests: request bytes in (exactly as given, so a test can send anything
/// a hostile client would), the server's answer out: read until its `Content-Length` body is
/// complete (a kept-alive connection stays open after it), or until the server closes.
public enum HTTPClient {
    /// Sends `raw` to 127.0.0.1:`port` and reads one answer (see above). `from`: connect from
    /// another loopback address (127.0.0.2 is another host to the server).
    public static func exchange(port: Int, _ raw: [UInt8], timeout: Double = testDeadline, from: String? = nil) throws -> HTTPReply {
        let connection = try from.map { try LineClient(port: port, readGreeting: false, sendTimeout: 30, from: $0) } ?? LineClient.peer(port: port)
        defer { connection.close() }
        guard connection.write(raw) else { throw TestError("sending the request failed: errno \(errno)") }
        return try readReply(connection, timeout: timeout)
    }

    /// Reads the next answer on `connection` (bytes after it stay in `connection.received`).
    public static func readReply(_ connection: LineClient, timeout: Double = testDeadline) throws -> HTTPReply {
        connection.keepReceived = true
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            if let length = completeLength(connection.received) {
                let reply = try HTTPReply.parse(Array(connection.received[..<length]))
                connection.received.removeFirst(length)
                return reply
            }
            if !connection.sawEOF {
                guard deadline.timeIntervalSinceNow > 0 else {
                    throw TestError("no complete answer within \(timeout) s (have \(connection.received.count) bytes)")
                }
                connection.fill(waitMilliseconds: 100)
                continue
            }
            let reply = try HTTPReply.parse(connection.received)
            connection.received = []
            return reply
        }
    }

    /// The length of a complete answer at the start of `bytes` (head and `Content-Length` body).
    static func completeLength(_ bytes: [UInt8]) -> Int? {
        guard let end = bytes.indices.dropLast(3).first(where: { bytes[$0..<$0 + 4].elementsEqual([13, 10, 13, 10]) }),
              let head = try? HTTPReply.parse(Array(bytes[..<(end + 4)])),
              let length = head.header("content-length").flatMap({ Int($0) }) else { return nil }
        return bytes.count >= end + 4 + length ? end + 4 + length : nil
    }

    public static func exchange(port: Int, _ raw: String, timeout: Double = testDeadline) throws -> HTTPReply {
        try exchange(port: port, Array(raw.utf8), timeout: timeout)
    }

    /// `METHOD path HTTP/1.x` with a Host header, `Connection: close` (one request, as a test
    /// of one route wants) and `headers` (each "Name: value").
    public static func request(_ method: String, port: Int, _ target: String, headers: [String] = [], version: String = "1.1") throws -> HTTPReply {
        let head = "\(method) \(target) HTTP/\(version)\r\nHost: 127.0.0.1\r\nConnection: close\r\n" + headers.map { $0 + "\r\n" }.joined() + "\r\n"
        return try exchange(port: port, head)
    }

    /// A write: `POST path` with a JSON body, as a till sends it (Host 127.0.0.1:`port`,
    /// `Content-Type: application/json`, `Content-Length`), plus `headers`.
    public static func postRequest(port: Int, _ path: String, json: String, headers: [String] = [], close: Bool = true) -> [UInt8] {
        let body = Array(json.utf8)
        let head = "POST \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nContent-Type: application/json\r\n"
            + "Content-Length: \(body.count)\r\n" + (close ? "Connection: close\r\n" : "") + headers.map { $0 + "\r\n" }.joined() + "\r\n"
        return Array(head.utf8) + body
    }

    public static func post(port: Int, _ path: String, json: String, headers: [String] = []) throws -> HTTPReply {
        try exchange(port: port, postRequest(port: port, path, json: json, headers: headers))
    }

    public static func get(port: Int, _ target: String, headers: [String] = []) throws -> HTTPReply {
        try request("GET", port: port, target, headers: headers)
    }
}

/// One event-stream block (the lines up to a blank line), as JuiceCore's `EventStreamReader`
/// reads it.
package typealias EventStreamMessage = EventStreamBlock

extension EventStreamBlock {
    /// A stock message's data: its seq and the fruits it lists.
    package func stock() throws -> (seq: UInt64, stock: [String: Int]) {
        guard let data, let object = try JSONSerialization.jsonObject(with: Data(data.utf8)) as? [String: Any],
              let seq = (object["seq"] as? NSNumber)?.uint64Value, let stock = object["stock"] as? [String: Int] else {
            throw TestError("not a stock message: \(self)")
        }
        return (seq, stock)
    }
}

/// A browser's event stream over a real socket: sends `GET /events` (with `Last-Event-ID` if
/// given), reads the response head, then hands out one block at a time.
public final class EventStreamClient: @unchecked Sendable {
    // @unchecked: owned by one thread at a time, like `LineClient`.
    public let connection: LineClient
    public private(set) var head: [String] = []
    /// The reader holds the block being read when a wait ran out: the next call goes on with it.
    private var reader = EventStreamReader(readsHead: false, keepsFields: true)

    /// `target` may carry the store a resume is for, as the pages send it: `/events?store=<id>`.
    public init(port: Int, lastEventID: String? = nil, target: String = "/events", receiveBuffer: Int? = nil, readHead: Bool = true) throws {
        connection = try LineClient.peer(port: port, receiveBuffer: receiveBuffer)
        let resume = lastEventID.map { "Last-Event-ID: \($0)\r\n" } ?? ""
        try connection.sendRaw(Array("GET \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\(resume)\r\n".utf8))
        if readHead { try readResponseHead() }
    }

    /// Reads the status line and header fields, up to the blank line.
    public func readResponseHead(timeout: Double = testDeadline) throws {
        while true {
            let line = try connection.readLine(timeout: timeout)
            if line.isEmpty { return }
            head.append(line)
        }
    }

    public var status: Int? { head.first.flatMap { $0.split(separator: " ").dropFirst().first.flatMap { Int($0) } } }

    public func header(_ name: String) -> String? {
        for line in head.dropFirst() {
            guard let colon = line.firstIndex(of: ":"), line[..<colon].lowercased() == name.lowercased() else { continue }
            return line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        return nil
    }

    package typealias Read = JuiceTestSupport.Read<EventStreamMessage>

    /// The next block, whatever it holds (a comment-only block included).
    package func nextBlock(timeout: Double = testDeadline) -> Read {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            switch connection.nextLine(timeout: max(0, deadline.timeIntervalSinceNow)) {
            case .closed: return .closed
            case .timeout: return .timeout
            case .got(let line):
                switch reader.line(line) {
                case .message, .emptyBlock: return .got(reader.block)
                case .none, .refused: continue
                }
            }
        }
    }

    /// The next block carrying data (skipping `retry:` and comment-only blocks).
    package func nextEvent(timeout: Double = testDeadline) -> Read {
        .first(within: timeout, { nextBlock(timeout: $0) }, where: { $0.data != nil })
    }

    /// The same, throwing when the stream closed or nothing came in time.
    package func event(timeout: Double = testDeadline) throws -> EventStreamMessage {
        try nextEvent(timeout: timeout).value("event", timeout: timeout)
    }

    public func close() { connection.close() }
}

import JuiceCore

/// The statuses the HTTP side answers with.
enum HTTPStatus: Int, Sendable {
    case ok = 200
    case badRequest = 400
    case unauthorized = 401
    case forbidden = 403
    case notFound = 404
    case methodNotAllowed = 405
    case conflict = 409
    case lengthRequired = 411
    case payloadTooLarge = 413
    case unsupportedMediaType = 415
    case headerFieldsTooLarge = 431
    case serviceUnavailable = 503
    case versionNotSupported = 505

    var reason: String {
        switch self {
        case .ok: return "OK"
        case .badRequest: return "Bad Request"
        case .unauthorized: return "Unauthorized"
        case .forbidden: return "Forbidden"
        case .notFound: return "Not Found"
        case .methodNotAllowed: return "Method Not Allowed"
        case .conflict: return "Conflict"
        case .lengthRequired: return "Length Required"
        case .payloadTooLarge: return "Content Too Large"
        case .unsupportedMediaType: return "Unsupported Media Type"
        case .headerFieldsTooLarge: return "Request Header Fields Too Large"
        case .serviceUnavailable: return "Service Unavailable"
        case .versionNotSupported: return "HTTP Version Not Supported"
        }
    }
}

/// Every byte the HTTP side sends is built here: a response is a status, a few headers and a
/// body, with `Connection: keep-alive` when the connection stays for another request, else
/// `Connection: close`.
struct HTTPResponse {
    var status: HTTPStatus
    var contentType: String
    var body: [UInt8]
    var extraHeaders: [(String, String)] = []

    static let text = "text/plain; charset=utf-8"
    static let html = "text/html; charset=utf-8"
    static let json = "application/json; charset=utf-8"

    init(_ status: HTTPStatus, _ contentType: String = HTTPResponse.text, body: [UInt8], headers: [(String, String)] = []) {
        self.status = status
        self.contentType = contentType
        self.body = body
        self.extraHeaders = headers
    }

    /// A plain-text answer, e.g. an error: the message and a newline.
    static func plain(_ status: HTTPStatus, _ message: String, headers: [(String, String)] = []) -> HTTPResponse {
        HTTPResponse(status, body: Array((message + "\n").utf8), headers: headers)
    }

    /// The bytes to send; a HEAD request gets the same head without the body.
    func bytes(includeBody: Bool = true, keepAlive: Bool = false) -> [UInt8] {
        // Built on bytes: this runs once per request, and String interpolation showed in profiles.
        var out: [UInt8] = []
        out.reserveCapacity(160 + (includeBody ? body.count : 0))
        out.append(ascii: "HTTP/1.1 ")
        out.append(decimal: status.rawValue)
        out.append(UInt8(ascii: " "))
        out.append(status.reason)
        out.append(ascii: "\r\nContent-Type: ")
        out.append(contentType)
        out.append(ascii: "\r\nContent-Length: ")
        out.append(decimal: body.count)
        out.append(ascii: "\r\nCache-Control: no-store\r\nX-Content-Type-Options: nosniff\r\n")
        for (name, value) in extraHeaders {
            out.append(name)
            out.append(ascii: ": ")
            out.append(value)
            out.append(ascii: "\r\n")
        }
        out.append(ascii: keepAlive ? "Connection: keep-alive\r\n\r\n" : "Connection: close\r\n\r\n")
        if includeBody { out.append(contentsOf: body) }
        return out
    }

    /// A JSON answer (the writes' answers and refusals).
    static func json(_ status: HTTPStatus, _ text: String, headers: [(String, String)] = []) -> HTTPResponse {
        HTTPResponse(status, HTTPResponse.json, body: Array(text.utf8), headers: headers)
    }

    /// The head of an event stream: no length (it ends when the connection does), never cached
    /// or buffered by a proxy; then how soon a browser should reconnect.
    static let eventStreamHead = streamHead(connection: "keep-alive")

    /// Over `--max-clients` / `--max-clients-per-address`: built once, sent to every refused
    /// connection of a flood.
    static let busy = plain(.serviceUnavailable, "busy: max clients reached", headers: [("Retry-After", "1")]).bytes()
    static let busyForAddress = plain(.serviceUnavailable, "busy: too many connections from your address",
                                      headers: [("Retry-After", "1")]).bytes()
    /// `HEAD /events`: the same head with no stream behind it (so no length either, RFC 9110
    /// 9.3.2), and the connection closes after it.
    static let eventStreamHeadOnly = streamHead(connection: "close")

    private static func streamHead(connection: String) -> [UInt8] {
        Array(("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream; charset=utf-8\r\n"
            + "Cache-Control: no-store\r\nX-Accel-Buffering: no\r\nConnection: \(connection)\r\n\r\n").utf8)
    }
}

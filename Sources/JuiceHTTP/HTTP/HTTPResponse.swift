import JuiceCore
import JuiceDomain
import JuicePlatform
import JuiceLog
import JuiceLoop
import JuiceServices

/// The statuses the HTTP side answers with: the code is the case's raw value, the reason phrase
/// is `reason`'s (an enum, so a status added without its phrase does not compile).
package enum HTTPStatus: Int, Sendable, CaseIterable, CustomStringConvertible {
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

    package var code: Int { rawValue }

    /// The reason phrase of RFC 9110, section 15 (413's is its newer name, "Content Too Large").
    package var reason: String {
        switch self {
        case .ok: "OK"
        case .badRequest: "Bad Request"
        case .unauthorized: "Unauthorized"
        case .forbidden: "Forbidden"
        case .notFound: "Not Found"
        case .methodNotAllowed: "Method Not Allowed"
        case .conflict: "Conflict"
        case .lengthRequired: "Length Required"
        case .payloadTooLarge: "Content Too Large"
        case .unsupportedMediaType: "Unsupported Media Type"
        case .headerFieldsTooLarge: "Request Header Fields Too Large"
        case .serviceUnavailable: "Service Unavailable"
        case .versionNotSupported: "HTTP Version Not Supported"
        }
    }

    package var description: String { "\(code) \(reason)" }
}

/// Every byte the HTTP side sends is built here: a response is a status, a few headers and a
/// body, with `Connection: keep-alive` when the connection stays for another request, else
/// `Connection: close`.
package struct HTTPResponse {
    package var status: HTTPStatus
    package var contentType: String
    package var body: [UInt8]
    package var extraHeaders: [(String, String)] = []

    package static let text = "text/plain; charset=utf-8"
    package static let html = "text/html; charset=utf-8"
    package static let json = "application/json; charset=utf-8"
    /// The till's service worker (Pages/till-sw.js).
    package static let javascript = "text/javascript; charset=utf-8"
    /// The till's web app manifest (Pages/till.webmanifest; JSON, which is UTF-8 by definition).
    package static let webManifest = "application/manifest+json"
    /// The till's app icons.
    package static let png = "image/png"

    package init(_ status: HTTPStatus, _ contentType: String = HTTPResponse.text, body: [UInt8], headers: [(String, String)] = []) {
        self.status = status
        self.contentType = contentType
        self.body = body
        self.extraHeaders = headers
    }

    /// A plain-text answer, e.g. an error: the message and a newline.
    package static func plain(_ status: HTTPStatus, _ message: String, headers: [(String, String)] = []) -> HTTPResponse {
        HTTPResponse(status, body: Array((message + "\n").utf8), headers: headers)
    }

    /// The bytes to send; a HEAD request gets the same head without the body.
    package func bytes(includeBody: Bool = true, keepAlive: Bool = false) -> [UInt8] {
        // Built on bytes: this runs once per request, and String interpolation showed in profiles.
        var out: [UInt8] = []
        out.reserveCapacity(160 + (includeBody ? body.count : 0))
        out.append(ascii: "HTTP/1.1 ")
        out.append(decimal: status.code)
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
    package static func json(_ status: HTTPStatus, _ text: String, headers: [(String, String)] = []) -> HTTPResponse {
        HTTPResponse(status, HTTPResponse.json, body: Array(text.utf8), headers: headers)
    }

    /// The head of an event stream: no length (it ends when the connection does), never cached
    /// or buffered by a proxy; then how soon a browser should reconnect.
    package static let eventStreamHead = streamHead(connection: "keep-alive")

    /// Over `--max-clients` / `--max-clients-per-address`: built once, sent to every refused
    /// connection of a flood.
    package static let busy = plain(.serviceUnavailable, "busy: max clients reached", headers: [("Retry-After", "1")]).bytes()
    package static let backupsBusy = plain(.serviceUnavailable, "busy: \(HTTPProtocol.maxBackupsSending) backups are being sent now; ask again shortly",
                                           headers: [("Retry-After", "5")]).bytes()
    package static let busyForAddress = plain(.serviceUnavailable, "busy: too many connections from your address",
                                      headers: [("Retry-After", "1")]).bytes()
    /// `HEAD /events`: the same head with no stream behind it (so no length either, RFC 9110
    /// 9.3.2), and the connection closes after it.
    package static let eventStreamHeadOnly = streamHead(connection: "close")

    private static func streamHead(connection: String) -> [UInt8] {
        Array(("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream; charset=utf-8\r\n"
            + "Cache-Control: no-store\r\nX-Accel-Buffering: no\r\nConnection: \(connection)\r\n\r\n").utf8)
    }
}

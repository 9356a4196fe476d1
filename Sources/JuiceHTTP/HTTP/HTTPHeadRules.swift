import JuiceCore
import JuiceDomain
import JuicePlatform
import JuiceLog
import JuiceLoop
import JuiceServices
/// What a request head must hold beyond its syntax (RFC 9112 §3.2, RFC 9110 §8.6): an HTTP/1.1
/// request names its `Host`, and a field that means one thing is sent once. Were a repeated one
/// taken, which copy counts would be this server's guess, and a proxy in front may guess the
/// other way: one sees `Host: shop` and the other `Host: evil`, or two bodies where one framed a
/// single one (request smuggling). So each of these, sent twice, gets `400`, whatever the values.
package enum HTTPHeadRules {
    /// The fields taken at most once, lowercased, and as the answer names them.
    package static let singletons: [(name: String, shown: String)] = [
        ("host", "Host"), ("content-length", "Content-Length"), ("origin", "Origin"),
        ("idempotency-key", "Idempotency-Key"), ("authorization", "Authorization"), ("juice-till", "Juice-Till"),
        // Where an event stream resumes: two would be two answers to one question.
        ("last-event-id", "Last-Event-ID"),
    ]

    /// Why the head cannot be taken, or nil. HTTP/1.0 had no `Host`, so it may leave it out.
    package static func problem(minorVersion: Int, headers: [HTTPRequest.Header]) -> String? {
        var seen = [Bool](repeating: false, count: singletons.count)
        for header in headers {
            guard let i = singletons.firstIndex(where: { $0.name == header.name }) else { continue }
            if seen[i] { return "repeated \(singletons[i].shown) header: send it once" }
            seen[i] = true
        }
        if minorVersion >= 1 && !seen[0] { return "an HTTP/1.1 request needs a Host header" }
        return nil
    }
}

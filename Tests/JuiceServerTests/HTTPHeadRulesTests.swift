import Foundation
import JuiceCore
import JuiceDomain
import JuiceStorage
import JuicePlatform
import JuiceLog
import JuiceLoop
import JuiceServices
import JuiceLine
import JuiceHTTP
@testable import JuiceServer
import Testing

/// RFC 9112 §3.2 and RFC 9110: an HTTP/1.1 request names its Host, and a field that means one
/// thing (Host, Content-Length, Origin, Idempotency-Key, Authorization) comes once. Taking the
/// first of two let a request say one thing to a proxy and another to this server.
@Suite(.onOwnThreads) struct HTTPHeadRulesTests {
    /// A value each field may carry, so that only the repetition is wrong.
    static let values = ["Host": "127.0.0.1", "Content-Length": "0", "Origin": "http://127.0.0.1",
                         "Idempotency-Key": "till1-1", "Authorization": "Bearer s3cret",
                         "Last-Event-ID": "3", "Juice-Till": "1-aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"]

    @Test(arguments: HTTPHeadRules.singletons.map(\.shown))
    func aFieldThatMayComeOnceIsRefusedTwiceEvenWithTheSameValue(name: String) throws {
        let value = try #require(Self.values[name])
        let host = name == "Host" ? "" : "Host: 127.0.0.1\r\n"
        // Once is fine; twice (in another case, as a client may spell it) is not.
        let once = "GET /healthz HTTP/1.1\r\n\(host)\(name): \(value)\r\n\r\n"
        guard case .complete = HTTPRequestReaderTests.everyCut(once) else {
            Issue.record("\(name) once was not taken")
            return
        }
        let twice = "GET /healthz HTTP/1.1\r\n\(host)\(name): \(value)\r\nX-Between: 1\r\n\(name.uppercased()): \(value)\r\n\r\n"
        #expect(HTTPRequestReaderTests.everyCut(twice) == .refused(.badRequest, "repeated \(name) header: send it once"))
    }

    @Test func http11NeedsAHostAndHTTP10DoesNot() {
        #expect(HTTPRequestReaderTests.everyCut("GET /healthz HTTP/1.1\r\nAccept: */*\r\n\r\n")
                == .refused(.badRequest, "an HTTP/1.1 request needs a Host header"))
        guard case .complete(let request) = HTTPRequestReaderTests.everyCut("GET /healthz HTTP/1.0\r\n\r\n") else {
            Issue.record("HTTP/1.0 without Host was not taken")
            return
        }
        #expect(request.minorVersion == 0)
    }

    /// Over a real socket: each repeated field gets 400 naming it and a close, and nothing is
    /// applied, whichever copy would have been taken.
    @Test func repeatedFieldsAreRefusedOverTheWireAndNothingIsApplied() throws {
        let server = try ExecutableServer(["--in-memory"], environment: ["JUICE_MANAGER_TOKEN": "s3cret"])
        let http = server.httpPort
        let body = #"{"juice":"mango"}"#
        let ownHost = "127.0.0.1:\(http)"
        let twice: [(name: String, first: String, second: String)] = [
            ("Host", ownHost, "rebound.evil.example"),
            ("Content-Length", "\(body.utf8.count)", "0"),
            ("Origin", "http://\(ownHost)", "http://evil.example"),
            ("Idempotency-Key", "till1-1", "till1-2"),
            ("Authorization", "Bearer s3cret", "Bearer guess"),
        ]
        for field in twice {
            var head = "POST /orders HTTP/1.1\r\n"
            if field.name != "Host" { head += "Host: \(ownHost)\r\n" }
            if field.name != "Content-Length" { head += "Content-Length: \(body.utf8.count)\r\n" }
            head += "\(field.name): \(field.first)\r\n\(field.name): \(field.second)\r\nContent-Type: application/json\r\n\r\n"
            let c = try LineClient.peer(port: http)
            #expect(c.write(head + body))
            let reply = try HTTPClient.readReply(c)
            #expect(reply.status == 400, "\(field.name): \(reply.statusLine)")
            #expect(reply.text.contains("repeated \(field.name) header"), "\(reply.text)")
            #expect(reply.header("Connection") == "close")
            #expect(c.waitClosed())
        }
        // The same order, each field once, is taken: only the repetition was refused.
        let taken = try HTTPClient.post(port: http, "/orders", json: body,
                                        headers: ["Origin: http://\(ownHost)", "Idempotency-Key: till1-1", "Authorization: Bearer s3cret"])
        #expect(taken.status == 200, "\(taken.text)")
        #expect(try server.client().command("STOCK mango") == "OK STOCK seq=1 mango=7")
    }

    @Test func aMissingHostIs400OnHTTP11AndFineOnHTTP10() throws {
        let server = try ExecutableServer(["--in-memory"])
        let http = server.httpPort
        let read = try HTTPClient.exchange(port: http, "GET /healthz HTTP/1.1\r\n\r\n")
        #expect(read.status == 400 && read.text.contains("needs a Host header"), "\(read.statusLine) \(read.text)")
        let body = #"{"juice":"mango"}"#
        let write = try HTTPClient.exchange(port: http, "POST /orders HTTP/1.1\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)")
        #expect(write.status == 400 && write.text.contains("needs a Host header"), "\(write.statusLine) \(write.text)")
        let old = try HTTPClient.exchange(port: http, "GET /healthz HTTP/1.0\r\n\r\n")
        #expect(old.status == 200 && old.text == "ok\n")
        #expect(try server.client().command("STOCK mango") == "OK STOCK seq=0 mango=10")
    }
}

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

/// `HTTPResponse.bytes` builds every HTTP answer's head on bytes (it runs once per request):
/// these are the exact bytes the contract's answers had when the head was built as a String.
@Suite(.onOwnThreads) struct HTTPResponseBytesTests {
    private func text(_ response: HTTPResponse, includeBody: Bool = true, keepAlive: Bool = false) -> String {
        String(decoding: response.bytes(includeBody: includeBody, keepAlive: keepAlive), as: UTF8.self)
    }

    @Test func anOrdersAnswerKeptAlive() {
        let json = #"{"ok":true,"juice":"mango-kiwi","count":2,"seq":7,"stock":{"mango":6,"kiwi":8},"dup":false}"#
        #expect(text(HTTPResponse(.ok, HTTPResponse.json, body: Array(json.utf8)), keepAlive: true)
                == "HTTP/1.1 200 OK\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: 91\r\n"
                + "Cache-Control: no-store\r\nX-Content-Type-Options: nosniff\r\nConnection: keep-alive\r\n\r\n" + json)
    }

    @Test func aRefusalWithExtraHeadersClosing() {
        let refusal = WriteAnswer.refusal(.unauthorized, .authFailed, "a token is needed", headers: [("WWW-Authenticate", "Bearer")])
        #expect(text(refusal)
                == "HTTP/1.1 401 Unauthorized\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: 64\r\n"
                + "Cache-Control: no-store\r\nX-Content-Type-Options: nosniff\r\nWWW-Authenticate: Bearer\r\nConnection: close\r\n\r\n"
                + #"{"ok":false,"error":"AUTH_FAILED","message":"a token is needed"}"#)
    }

    @Test func aHeadAnswerHasTheLengthButNoBody() {
        #expect(text(.plain(.notFound, "no such page: /x"), includeBody: false)
                == "HTTP/1.1 404 Not Found\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: 17\r\n"
                + "Cache-Control: no-store\r\nX-Content-Type-Options: nosniff\r\nConnection: close\r\n\r\n")
        #expect(String(decoding: HTTPResponse.busy, as: UTF8.self)
                == "HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: 26\r\n"
                + "Cache-Control: no-store\r\nX-Content-Type-Options: nosniff\r\nRetry-After: 1\r\nConnection: close\r\n\r\n"
                + "busy: max clients reached\n")
    }
}

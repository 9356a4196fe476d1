import Foundation
import Testing

/// `/till` and `/stock` (issue 18), `/reports` (issue 24) and `/tills` (issue 31), on the built executable, over real sockets: each is one
/// self-contained HTML document (a shop's network may be offline), public like the dashboard
/// (the pages hold no data; their writes carry the token), with its icon inline so a browser
/// does not ask for /favicon.ico. What they do is tested in a real browser (Tests/browser).
@Suite(.onOwnThreads) struct TillPageRoutesTests {
    @Test(arguments: ["/till", "/stock", "/reports", "/tills"])
    func thePageIsOneSelfContainedPublicDocument(_ path: String) throws {
        let server = try ExecutableServer(["--in-memory"], environment: ["JUICE_MANAGER_TOKEN": "page-test-token"])
        let page = try HTTPClient.get(port: server.httpPort, path)
        #expect(page.statusLine == "HTTP/1.1 200 OK", "no token needed for the page itself")
        #expect(page.header("Content-Type") == "text/html; charset=utf-8")
        #expect(page.header("Content-Length") == String(page.body.count))
        #expect(page.text.lowercased().hasPrefix("<!doctype html>"))
        for external in ["src=\"http", "href=\"http", "src=\"//", "href=\"//", "src='http", "href='http", "url(http", "@import"] {
            #expect(!page.text.contains(external), "\(path) loads \(external)…")
        }
        #expect(page.text.contains("<link rel=\"icon\" href=\"data:image/svg+xml,"), "no inline icon")
        #expect(!page.text.contains("page-test-token"))
        // The query (?lang=ko) is read by the page's script, never by the route.
        #expect(try HTTPClient.get(port: server.httpPort, path + "?lang=ko").body == page.body)
        let head = try HTTPClient.request("HEAD", port: server.httpPort, path)
        #expect(head.status == 200 && head.body.isEmpty && head.header("Content-Length") == String(page.body.count))
    }

    /// The till's service worker: a script at `/till-sw.js` that the till registers with scope
    /// `/till`, keeping the page and nothing else (what it does offline: Tests/browser).
    @Test func theTillWorkerIsAScriptThatKeepsOnlyThePage() throws {
        let server = try ExecutableServer(["--in-memory"])
        let worker = try HTTPClient.get(port: server.httpPort, "/till-sw.js")
        #expect(worker.statusLine == "HTTP/1.1 200 OK")
        #expect(worker.header("Content-Type") == "text/javascript; charset=utf-8")
        #expect(worker.text.contains("PAGE = \"/till\"") && worker.text.contains("addEventListener(\"fetch\""))
        let till = try HTTPClient.get(port: server.httpPort, "/till")
        #expect(till.text.contains("navigator.serviceWorker.register(\"/till-sw.js\", { scope: \"/till\" })"))
    }
}

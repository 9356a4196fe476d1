import Foundation
import Testing
import JuiceTestSupport

/// The till as an installable app (issue 34), on the built executable over real sockets: `/till`
/// links a web app manifest, served as `application/manifest+json`, whose fields a browser needs
/// to install it, and whose PNG icons are served byte for byte. That Chromium finds it
/// installable is tested in a real browser (Tests/browser/test_till_install.py).
@Suite(.onOwnThreads) struct TillManifestTests {
    static let pages = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Sources/JuiceHTTP/Pages")

    @Test func theTillLinksAManifestWithWhatAnInstallNeeds() throws {
        let server = try ExecutableServer(["--in-memory"], environment: ["JUICE_MANAGER_TOKEN": "manifest-test-token"])
        let till = try HTTPClient.get(port: server.httpPort, "/till")
        #expect(till.text.contains("<link rel=\"manifest\" href=\"/till.webmanifest\">"))
        #expect(till.text.contains("<meta name=\"theme-color\" content=\"#0d1016\">"))

        let reply = try HTTPClient.get(port: server.httpPort, "/till.webmanifest")
        #expect(reply.statusLine == "HTTP/1.1 200 OK", "public, like the till")
        #expect(reply.header("Content-Type") == "application/manifest+json")
        let manifest = try reply.json()
        #expect(manifest["name"] as? String == "Juice till")
        #expect(manifest["short_name"] as? String == "Till")
        #expect(manifest["start_url"] as? String == "/till")
        #expect(manifest["scope"] as? String == "/till")
        #expect(manifest["display"] as? String == "standalone")
        #expect(manifest["theme_color"] as? String == "#0d1016" && manifest["background_color"] as? String == "#0d1016")
        let icons = try #require(manifest["icons"] as? [[String: String]])
        #expect(Set(icons.compactMap { $0["sizes"] }) == ["192x192", "512x512"])
        for icon in icons {
            #expect(icon["type"] == "image/png" && icon["purpose"] == "any", "\(icon)")
            let path = try #require(icon["src"])
            let png = try HTTPClient.get(port: server.httpPort, path)
            #expect(png.status == 200 && png.header("Content-Type") == "image/png", "\(path): \(png.statusLine)")
            let file = try Data(contentsOf: Self.pages.appendingPathComponent(String(path.dropFirst())))
            #expect(png.body == [UInt8](file), "\(path) is not its file byte for byte")
            #expect(png.body.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]), "\(path) is no PNG")
            // The PNG's own size (IHDR: width and height, big-endian, from byte 16) is the one it claims.
            let side = { (at: Int) in png.body[at..<at + 4].reduce(0) { $0 << 8 | Int($1) } }
            #expect("\(side(16))x\(side(20))" == icon["sizes"], "\(path)")
            let head = try HTTPClient.request("HEAD", port: server.httpPort, path)
            #expect(head.status == 200 && head.body.isEmpty && head.header("Content-Length") == String(png.body.count))
        }
    }
}

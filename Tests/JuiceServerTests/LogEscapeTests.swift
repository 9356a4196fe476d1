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

/// Log lines quote client text (a Host, an Origin), and a terminal or log viewer obeys some
/// characters instead of showing them: C0 and C1 controls, and bidirectional overrides that
/// make a line read in another order than it was written. The log shows them as `\u{XX}`.
@Suite(.onOwnThreads) struct LogEscapeTests {
    /// Every character a terminal may act on, each as the log writes it.
    static let hidden: [(Unicode.Scalar, String)] = [
        ("\u{0}", "\\u{0}"), ("\n", "\\u{A}"), ("\u{1B}", "\\u{1B}"), ("\u{7F}", "\\u{7F}"), ("\u{80}", "\\u{80}"),
        ("\u{85}", "\\u{85}"), ("\u{9B}", "\\u{9B}"), ("\u{9F}", "\\u{9F}"), ("\u{202A}", "\\u{202A}"), ("\u{202E}", "\\u{202E}"),
        ("\u{2066}", "\\u{2066}"), ("\u{2069}", "\\u{2069}"),
    ]

    @Test func controlsAndBidiOverridesAreEscapedAndOtherTextIsKept() {
        for (scalar, escaped) in Self.hidden {
            #expect(LogText.escaped("a\(Character(scalar))b") == "a\(escaped)b", "U+\(String(scalar.value, radix: 16))")
        }
        for kept in ["plain ASCII: 127.0.0.1:7879", "딸기 바나나", "naïve café", "\u{A0}nbsp", "\u{2028}?", "\u{200F}rlm", "emoji 🍓"] {
            #expect(LogText.escaped(kept) == kept)
        }
        #expect(!(0x20...0x7E).contains { LogText.isHidden(Unicode.Scalar(UInt8($0))) })
    }

    /// Driven as a user runs it: a write under a forged Host and Origin is refused, and its
    /// log line shows the text escaped, with none of those characters in the log itself.
    @Test func aRefusedWriteLogsTheClientsHostAndOriginEscaped() throws {
        let server = try ExecutableServer(["--in-memory"])
        let http = server.httpPort
        let body = #"{"juice":"mango"}"#
        // U+202E turns "moc.live" around into "evil.com" on screen; U+009B starts a terminal command.
        let origin = "http://shop\u{202E}moc.live\u{2066}x\u{85}y\u{9B}31m"
        let host = "shop\u{202D}\u{2069}.local\u{80}"
        for (h, o) in [("127.0.0.1:\(http)", origin), (host, nil)] as [(String, String?)] {
            let head = "POST /orders HTTP/1.1\r\nHost: \(h)\r\n" + (o.map { "Origin: \($0)\r\n" } ?? "")
                + "Content-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n"
            #expect(try HTTPClient.exchange(port: http, head + body).status == 403)
        }
        // Read once the server stopped, which writes out every line it logged.
        #expect(server.terminate() == 0)
        let log = server.log()
        #expect(log.contains("(Origin http://shop\\u{202E}moc.live\\u{2066}x\\u{85}y\\u{9B}31m)"), "\(log)")
        #expect(log.contains("under the name 'shop\\u{202D}\\u{2069}.local\\u{80}'"), "\(log)")
        let shown = log.unicodeScalars.filter { LogText.isHidden($0) && $0 != "\n" }
        #expect(shown.isEmpty, "the log holds \(shown.map { "U+" + String($0.value, radix: 16) })")
    }
}

import Foundation
import JuiceTestSupport
import Testing

/// The README's "Two cashiers and a display", typed as a newcomer types it: the terminals opened
/// in the order the README gives, each one's lines sent as written, against the built server on
/// a new data directory. Every line the README shows a terminal receiving must arrive, in its
/// order (store ids aside: each store has its own). A transcript that interleaves terminals in
/// time, or shows replies from an older build (no amounts), fails here.
@Suite(.onOwnThreads) struct ReadmeExampleTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// One terminal of the transcript: its lines after the `$ nc` line.
    struct Terminal {
        let name: String
        let lines: [String]
        /// A line the terminal receives, as opposed to one its user types.
        static func isReceived(_ line: String) -> Bool {
            line.hasPrefix("EVENT ") || line.hasPrefix("OK ") || line.hasPrefix("ERR ")
        }
    }

    static func terminals(section: String) throws -> [Terminal] {
        let readme = try String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)
        guard let start = readme.range(of: "\n" + section + "\n") else { throw TestError("README has no '\(section)'") }
        let body = readme[start.upperBound...]
        let end = body.range(of: "\n## ")?.lowerBound ?? body.endIndex
        var terminals: [Terminal] = []
        var name: String?, lines: [String] = []
        for raw in body[..<end].split(separator: "\n", omittingEmptySubsequences: false) {
            guard raw.hasPrefix("    ") else { continue }
            let line = String(raw.dropFirst(4))
            if let prompt = line.range(of: "$ nc ") {
                if let name { terminals.append(Terminal(name: name, lines: lines)) }
                name = String(line[..<prompt.lowerBound])
                lines = []
            } else {
                lines.append(line)
            }
        }
        if let name { terminals.append(Terminal(name: name, lines: lines)) }
        return terminals
    }

    static func masked(_ line: String) -> String {
        line.replacingOccurrences(of: #"store=[0-9a-f]{16}"#, with: "store=…", options: .regularExpression)
    }

    /// The seq an `EVENT STOCK` line reports, nil for any other line.
    static func eventSeq(_ line: String) -> Int? {
        guard line.hasPrefix("EVENT STOCK seq="), let field = line.split(separator: " ").dropFirst(2).first else { return nil }
        return Int(field.dropFirst(4))
    }

    @Test func twoCashiersAndADisplayArriveAsTheReadmeShows() throws {
        let terminals = try Self.terminals(section: "## Two cashiers and a display")
        #expect(terminals.map(\.name) == ["display", "cashier-1", "cashier-2"])
        let data = TemporaryDirectory()
        let server = try ExecutableServer(["--data", data.path + "/juice-data"])
        defer { server.stop() }
        var clients: [LineClient] = []
        var next = [Int](repeating: 0, count: terminals.count)
        var made = 0   // the changes made so far: an event of a later one is not due yet
        // Each terminal in turn: its lines while they are due (typed, or received from what was
        // sent so far); then every terminal's rest, which later terminals' orders caused.
        func run(_ t: Int, toTheEnd: Bool) throws {
            let terminal = terminals[t], client = clients[t]
            while next[t] < terminal.lines.count {
                let line = terminal.lines[next[t]]
                if !Terminal.isReceived(line) {
                    try client.send(line)
                } else {
                    if !toTheEnd, let seq = Self.eventSeq(line), seq > made { return }
                    let got = try client.readLine()
                    #expect(Self.masked(got) == Self.masked(line), "\(terminal.name), line \(next[t] + 1)")
                    if got.hasPrefix("OK "), let seq = got.split(separator: " ").first(where: { $0.hasPrefix("seq=") }) {
                        made = max(made, Int(seq.dropFirst(4)) ?? made)
                    }
                }
                next[t] += 1
            }
        }
        for t in terminals.indices {
            clients.append(try LineClient(port: server.port, readGreeting: false))
            try run(t, toTheEnd: false)
        }
        for t in terminals.indices { try run(t, toTheEnd: true) }
        #expect(made == 3)
    }
}

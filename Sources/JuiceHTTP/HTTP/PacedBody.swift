/// A large answer (a backup: megabytes) sent a part at a time, each once the socket took the one
/// before: the connection's unsent output stays under `--max-output-bytes` (past it a client is
/// dropped as slow), and the parts are cut from the answer's own body, never a copy of it: the
/// store's kept backup is one copy in memory however many connections are sending it (each a
/// megabyte of its own, 200 clients that asked and stopped reading held 200 of them).
/// `HTTPSession` reads no next request until the last part is out.
struct PacedBody {
    /// A part: half the output a client may have pending, at most 256 KiB.
    static func partSize(maxOutputBytes: Int) -> Int { max(512, min(256 * 1024, maxOutputBytes / 2)) }

    private var rest: ArraySlice<UInt8> = []
    private var part = 0
    /// Whether the connection stays open once the last part is out.
    private(set) var keepAlive = true

    var isEmpty: Bool { rest.isEmpty }

    /// The head and the first part of `body`; the rest of it is kept for `next` (a slice: the
    /// body's own storage).
    mutating func start(head: [UInt8], body: [UInt8], part: Int, keepAlive: Bool) -> [UInt8] {
        self.part = part
        self.keepAlive = keepAlive
        rest = body[min(part, body.count)...]
        return head + body.prefix(part)
    }

    /// The next part, and whether it is the last.
    mutating func next() -> (bytes: [UInt8], last: Bool) {
        let bytes = Array(rest.prefix(part))
        rest = rest.dropFirst(part)
        return (bytes, rest.isEmpty)
    }
}

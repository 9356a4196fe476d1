/// A large answer (a backup: megabytes) sent a part at a time, each once the socket took the one
/// before: the connection's unsent output stays under `--max-output-bytes` (past it a client is
/// dropped as slow), and the store's memory holds one copy of the answer, not a second in the
/// outbox. `HTTPSession` reads no next request until the last part is out.
struct PacedBody {
    /// A part: half the output a client may have pending, at most 64 KiB. Small enough that 200
    /// clients asking at once (each gets its first part in its first turn) cost the loop little
    /// (a 256 KiB part kept a probe waiting 290 ms in bench.sh S8b); a reader drains one in a
    /// few of its turns.
    static func partSize(maxOutputBytes: Int) -> Int { max(512, min(64 * 1024, maxOutputBytes / 2)) }

    private var rest: ArraySlice<UInt8> = []
    private var part = 0
    /// Whether the connection stays open once the last part is out.
    private(set) var keepAlive = true

    var isEmpty: Bool { rest.isEmpty }

    /// The head and the first part of `body`; the rest is kept for `next`, as a slice of `body`
    /// itself: a body the store keeps (a backup) is shared by every client sending it, never
    /// copied whole per request.
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

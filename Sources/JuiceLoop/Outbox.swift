import JuiceCore
import JuicePlatform
import JuiceLog
/// A connection's pending output, in two parts:
/// - `ready`: bytes that may go out now (from `sent` on);
/// - `held`: bytes that wait for the journal, each run tagged with the journal position (LSN)
///   that must be on disk first. Nothing the server sends may reflect a change a crash could
///   still lose, so a reply to a change waits here until the fsync that covers it.
/// Order is kept: once anything is held, everything after it is held too. Both parts start
/// unallocated, so an idle connection costs no buffer, and the held part is one reference
/// (every connection carries an outbox; few hold output for long). It lives in its connection
/// and is never copied: a copy would share the held part.
package struct Outbox {
    package private(set) var ready: [UInt8] = []
    package private(set) var sent = 0
    private var heldPart: Held?

    private final class Held {
        package var bytes: [UInt8] = []
        /// (journal position to wait for, end offset in `bytes`), positions non-decreasing.
        package var runs: [(lsn: UInt64, end: Int)] = []
    }


    /// Everything not yet written to the socket: what the output cap is measured against.
    package var pendingBytes: Int { ready.count - sent + (heldPart?.bytes.count ?? 0) }
    package var hasReady: Bool { sent < ready.count }
    package var hasHeld: Bool { heldPart != nil }
    package var isEmpty: Bool { sent >= ready.count && heldPart == nil }

    /// Queues `bytes`; they go out once the journal is durable up to `lsn`. Returns whether
    /// anything is held now (this or earlier output).
    @discardableResult
    package mutating func append(_ bytes: some Collection<UInt8>, after lsn: UInt64 = 0, durable: UInt64 = 0) -> Bool {
        if heldPart == nil && lsn <= durable {
            ready.append(contentsOf: bytes)
            return false
        }
        let held = heldPart ?? Held()
        heldPart = held
        held.bytes.append(contentsOf: bytes)
        let last = held.runs.last?.lsn ?? 0
        held.runs.append((max(lsn, last), held.bytes.count))
        return true
    }

    /// Moves the held runs covered by `durable` to `ready`; true if anything moved.
    package mutating func release(durable: UInt64) -> Bool {
        guard let held = heldPart else { return false }
        var count = 0
        while count < held.runs.count && held.runs[count].lsn <= durable { count += 1 }
        guard count > 0 else { return false }
        let end = held.runs[count - 1].end
        if count == held.runs.count {
            // All of it: the usual case (a reply waiting for the sync that just finished).
            // With nothing else ready, the held buffer simply becomes the ready one.
            if ready.isEmpty { swap(&ready, &held.bytes) } else { ready.append(contentsOf: held.bytes) }
            heldPart = nil
        } else {
            ready.append(contentsOf: held.bytes[0..<end])
            held.bytes.removeFirst(end)
            held.runs.removeFirst(count)
            for i in held.runs.indices { held.runs[i].end -= end }
        }
        return true
    }

    /// Calls `write` with the ready bytes; it returns how many it wrote (or nil to stop).
    package mutating func drain(_ write: (UnsafeRawBufferPointer) -> Int?) {
        while sent < ready.count {
            let written = ready.withUnsafeBytes { write(UnsafeRawBufferPointer(rebasing: $0[sent...])) }
            guard let written, written > 0 else { break }
            sent += written
        }
        if sent == ready.count {
            // Keep a small buffer for the next reply; give a big one (a burst) back.
            ready.removeAll(keepingCapacity: ready.capacity <= 16 * 1024)
            sent = 0
        } else if sent >= 64 * 1024 && sent * 2 >= ready.count {
            // A reader that stays a little behind: drop what was sent, so memory tracks only
            // what is still pending.
            ready.removeFirst(sent)
            sent = 0
        }
    }
}

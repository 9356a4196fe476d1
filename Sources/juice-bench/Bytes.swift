import JuicePlatform

/// Immutable bytes (a request line with its CRLF, a prefix to match) copied once into memory
/// that lives as long as the run, so the hot path compares and copies with memcmp/memcpy on a
/// stable pointer instead of going through Array or String.
final class ByteString {
    let base: UnsafeMutableRawPointer
    let count: Int

    init(_ text: String, appendingCRLF: Bool = false) {
        var bytes = Array(text.utf8)
        if appendingCRLF { bytes += [13, 10] }
        count = bytes.count
        base = .allocate(byteCount: Swift.max(count, 1), alignment: 1)
        bytes.withUnsafeBytes { base.copyMemory(from: $0.baseAddress!, byteCount: count) }
    }

    deinit { base.deallocate() }

    @inline(__always)
    func isPrefix(of line: UnsafeRawPointer, length: Int) -> Bool {
        length >= count && memcmp(line, base, count) == 0
    }
}

extension Array where Element == ByteString {
    @inline(__always)
    func anyIsPrefix(of line: UnsafeRawPointer, length: Int) -> Bool {
        for prefix in self where prefix.isPrefix(of: line, length: length) { return true }
        return false
    }
}

/// A growable byte queue: append at the end, consume from the front. Used for a connection's
/// unsent output (partial writes) and for an incomplete input line carried between reads.
struct ByteQueue {
    private(set) var base: UnsafeMutableRawPointer
    private var capacity: Int
    private var start = 0
    private var end = 0

    init(capacity: Int) {
        self.capacity = capacity
        base = .allocate(byteCount: capacity, alignment: 8)
    }

    /// Must be called exactly once by the owner (the queue is a struct to keep access cheap).
    func deallocate() { base.deallocate() }

    var isEmpty: Bool { start == end }
    var count: Int { end - start }
    var readPointer: UnsafeMutableRawPointer { base + start }

    @inline(__always)
    mutating func append(_ bytes: UnsafeRawPointer, count n: Int) {
        if end + n > capacity { makeRoom(for: n) }
        (base + end).copyMemory(from: bytes, byteCount: n)
        end += n
    }

    @inline(__always)
    mutating func consume(_ n: Int) {
        start += n
        if start == end { start = 0; end = 0 }
    }

    mutating func removeAll() { start = 0; end = 0 }

    private mutating func makeRoom(for n: Int) {
        let live = end - start
        if live + n <= capacity / 2 {
            // Plenty of space once the consumed front is reclaimed.
            memmove(base, base + start, live)
        } else {
            var newCapacity = capacity * 2
            while newCapacity < live + n { newCapacity *= 2 }
            let newBase = UnsafeMutableRawPointer.allocate(byteCount: newCapacity, alignment: 8)
            newBase.copyMemory(from: base + start, byteCount: live)
            base.deallocate()
            base = newBase
            capacity = newCapacity
        }
        start = 0
        end = live
    }
}

/// Send timestamps of a connection's requests in flight, oldest first. Replies come back in
/// request order, so the oldest timestamp belongs to the next reply.
struct TimestampRing {
    private let slots: UnsafeMutablePointer<Nanos>
    private let capacity: Int
    private var head = 0
    private(set) var count = 0

    init(capacity: Int) {
        self.capacity = Swift.max(capacity, 1)
        slots = .allocate(capacity: self.capacity)
    }

    func deallocate() { slots.deallocate() }

    @inline(__always)
    mutating func push(_ time: Nanos) {
        precondition(count < capacity, "more requests in flight than the pipeline depth")
        var tail = head + count
        if tail >= capacity { tail -= capacity }
        slots[tail] = time
        count += 1
    }

    @inline(__always)
    mutating func popOldest() -> Nanos {
        let time = slots[head]
        head += 1
        if head == capacity { head = 0 }
        count -= 1
        return time
    }
}

/// The ASCII codes the line parser cares about.
enum ASCII {
    static let newline: UInt8 = 10
    static let carriageReturn: UInt8 = 13
    static let minus: UInt8 = 45      // "-" starts a RESP error reply
    static let zero: UInt8 = 48
    static let nine: UInt8 = 57
}

/// True for a reply that reports failure: our `ERR ...`, Redis's `-ERR ...`.
@inline(__always)
func isErrorReply(_ line: UnsafeRawPointer, length: Int) -> Bool {
    guard length >= 1 else { return false }
    let first = line.load(as: UInt8.self)
    if first == ASCII.minus { return true }
    return length >= 3 && first == 69 /* E */ && line.load(fromByteOffset: 1, as: UInt8.self) == 82 /* R */
        && line.load(fromByteOffset: 2, as: UInt8.self) == 82
}

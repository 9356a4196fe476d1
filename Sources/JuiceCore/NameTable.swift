/// Finds a fruit or juice by any of its names without allocating: the hot path looks names up
/// straight from the bytes of a received line. ASCII letters compare case-insensitively.

package struct NameTable: Sendable {
    package init() {}

    package struct Entry: Sendable {
        package let folded: [UInt8]
        package let index: Int
    }

    /// Entries by hash, in a power-of-two table indexed by the hash's low bits: no Hasher per
    /// lookup (a dictionary keyed by the hash cost one on every order, S2 perf).
    private var buckets: [[Entry]] = Array(repeating: [], count: 16)

    /// Adds a name; returns the index already holding it (folded), if it clashes.
    package mutating func insert(_ name: String, index: Int) -> Int? {
        let folded = name.utf8.map(ASCII.lower)
        if let existing = folded.withUnsafeBytes({ find($0) }) {
            return existing == index ? nil : existing
        }
        let count = buckets.reduce(0) { $0 + $1.count } + 1
        if count * 2 > buckets.count { grow() }
        let slot = folded.withUnsafeBytes { slotOf(NameTable.hash($0)) }
        buckets[slot].append(Entry(folded: folded, index: index))
        return nil
    }

    package func lookup(_ name: UnsafeRawBufferPointer) -> Int? {
        find(name)
    }

    private func find(_ name: UnsafeRawBufferPointer) -> Int? {
        for entry in buckets[slotOf(NameTable.hash(name))] where entry.folded.count == name.count {
            var same = true
            for i in 0..<name.count where ASCII.lowerInline(name[i]) != entry.folded[i] {
                same = false
                break
            }
            if same { return entry.index }
        }
        return nil
    }

    private func slotOf(_ hash: UInt64) -> Int { Int(truncatingIfNeeded: hash) & (buckets.count - 1) }

    /// Twice the slots, every entry moved to its new one.
    private mutating func grow() {
        let entries = buckets.joined()
        buckets = Array(repeating: [], count: buckets.count * 2)
        for entry in entries {
            let slot = entry.folded.withUnsafeBytes { slotOf(NameTable.hash($0)) }
            buckets[slot].append(entry)
        }
    }

    /// FNV-1a over the ASCII-folded bytes.
    
    package static func hash(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for b in bytes {
            h = (h ^ UInt64(ASCII.lowerInline(b))) &* 0x100_0000_01b3
        }
        return h
    }
}

extension ASCII {
    @inline(__always)
    package static func lowerInline(_ b: UInt8) -> UInt8 {
        (b >= 0x41 && b <= 0x5A) ? b | 0x20 : b
    }
}

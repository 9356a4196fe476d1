/// Finds a fruit or juice by any of its names without allocating: the hot path looks names up
/// straight from the bytes of a received line. ASCII letters compare case-insensitively.

struct NameTable: Sendable {

    struct Entry: Sendable {
        let folded: [UInt8]
        let index: Int
    }

    var buckets: [UInt64: [Entry]] = [:]

    /// Adds a name; returns the index already holding it (folded), if it clashes.
    mutating func insert(_ name: String, index: Int) -> Int? {
        let folded = name.utf8.map(ASCII.lower)
        let hash = folded.withUnsafeBytes { NameTable.hash($0) }
        if let existing = buckets[hash]?.first(where: { $0.folded == folded }) {
            return existing.index == index ? nil : existing.index
        }
        buckets[hash, default: []].append(Entry(folded: folded, index: index))
        return nil
    }

    
    func lookup(_ name: UnsafeRawBufferPointer) -> Int? {
        guard let bucket = buckets[NameTable.hash(name)] else { return nil }
        for entry in bucket where entry.folded.count == name.count {
            var same = true
            for i in 0..<name.count where ASCII.lowerInline(name[i]) != entry.folded[i] {
                same = false
                break
            }
            if same { return entry.index }
        }
        return nil
    }

    /// FNV-1a over the ASCII-folded bytes.
    
    static func hash(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for b in bytes {
            h = (h ^ UInt64(ASCII.lowerInline(b))) &* 0x100_0000_01b3
        }
        return h
    }
}

extension ASCII {
    @inline(__always)
    static func lowerInline(_ b: UInt8) -> UInt8 {
        (b >= 0x41 && b <= 0x5A) ? b | 0x20 : b
    }
}

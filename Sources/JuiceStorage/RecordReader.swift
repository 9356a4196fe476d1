import JuiceCore
import JuiceDomain
import JuicePlatform
import JuiceLog

/// Reads framed records from a whole file's bytes and says where, if anywhere, it stops being
/// trustworthy. Torn or corrupt, precisely:
///
/// - **torn**: the first bad record is bad in its *framing* (length field, checksum field, the
///   newline where the length says, or the checksum itself) and no checksum-valid record starts
///   on any later line: the end of a write that a crash cut short. Safe to cut off.
/// - **corrupt**: a framing problem with a checksum-valid record on a later line, or a
///   checksum-valid record whose payload this version would never write (an unknown kind, a
///   field out of range; see `JournalRecord.parse`), wherever it is, last or not: that record was
///   written whole, so it may be an acknowledged change. Never cut off.
package enum RecordReader {
    package enum Problem: Sendable, Equatable {
        /// The file ends in a partial or damaged record with nothing valid after it: a write a
        /// crash cut short. Safe to cut off at `offset`.
        case tornTail(offset: Int, reason: String)
        /// Anything else: never silently dropped.
        case corrupt(offset: Int, reason: String)
    }

    package struct Result: Sendable {
        package var records: [(offset: Int, record: JournalRecord)] = []
        package var problem: Problem?
        /// Bytes up to the end of the last good record.
        package var validLength = 0
    }

    package static func read(_ bytes: [UInt8]) -> Result {
        var result = Result()
        var offset = 0
        while offset < bytes.count {
            // The journal is preallocated: zeros from here to the end are unused space.
            if bytes[offset] == 0, bytes[offset...].allSatisfy({ $0 == 0 }) { return result }
            switch frame(bytes, at: offset) {
            case .record(let record, let next):
                result.records.append((offset, record))
                offset = next
                result.validLength = next
            case .bad(let reason):
                // Damage followed by good records is corruption; damage at the end is a torn write.
                if anyChecksumValidRecord(bytes, after: offset) {
                    result.problem = .corrupt(offset: offset, reason: reason + ", with checksum-valid records after it")
                } else {
                    result.problem = .tornTail(offset: offset, reason: reason)
                }
                return result
            case .invalid(let reason):
                result.problem = .corrupt(offset: offset, reason: reason)
                return result
            }
        }
        return result
    }

    private enum Frame {
        case record(JournalRecord, next: Int)
        /// The framing or the checksum is wrong.
        case bad(String)
        /// Framed and checksummed correctly, but not a record this version writes.
        case invalid(String)
    }

    private static func frame(_ b: [UInt8], at start: Int) -> Frame {
        // <length> SP <crc:8 hex> SP <payload> LF
        var i = start
        var length = 0
        while i < b.count, b[i] >= 0x30, b[i] <= 0x39, i - start < 8 {
            length = length * 10 + Int(b[i] - 0x30)
            i += 1
        }
        guard i > start, i < b.count, b[i] == 0x20 else { return .bad(i >= b.count ? "record cut short" : "bad length field") }
        i += 1
        guard i + 9 <= b.count else { return .bad("record cut short") }
        guard let crc = UInt32(String(decoding: b[i..<i + 8], as: UTF8.self), radix: 16), b[i + 8] == 0x20 else {
            return .bad("bad checksum field")
        }
        i += 9
        guard i + length + 1 <= b.count else { return .bad("record cut short") }
        let body = Array(b[i..<i + length])
        guard b[i + length] == 0x0A else { return .bad("record does not end where its length says") }
        guard CRC32.checksum(body) == crc else { return .bad("checksum mismatch") }
        switch JournalRecord.parse(body) {
        case .success(let record): return .record(record, next: i + length + 1)
        case .failure(let defect): return .invalid(defect.description)
        }
    }

    /// Whether any complete, checksum-valid record (known or not) starts on a line after
    /// `offset` (a record may also follow the zero padding a torn write left in preallocated space).
    private static func anyChecksumValidRecord(_ b: [UInt8], after offset: Int) -> Bool {
        var i = offset
        while i < b.count {
            guard let nl = b[i...].firstIndex(of: 0x0A) else { return false }
            i = nl + 1
            guard i < b.count else { return false }
            switch frame(b, at: i) {
            case .record, .invalid: return true
            case .bad: continue
            }
        }
        return false
    }
}

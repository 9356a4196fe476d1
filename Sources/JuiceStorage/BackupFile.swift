import Foundation
import JuiceCore
import JuiceDomain
import JuicePlatform

/// A backup: one file holding a store's whole state at one journal position, in the data
/// files' framing (`<length> <crc32> <payload>\n`, see `RecordReader`), so every part carries
/// its checksum:
///
///     juice-backup 1 <unix seconds taken>      what the file is, and when it was made
///     menu <menu.json>                         the menu the snapshot's names are read under
///     calendar <zone> <HH:MM>                  the calendar its hours were counted under
///     <the snapshot's records, H ... E>        exactly what `Snapshot.encode` writes
///     end <bytes before it> <crc32 of them>    proves the file whole: nothing cut or added
///
/// The snapshot alone cannot be a backup: its records name fruits and juices, which only the
/// menu gives a meaning (and the hours their calendar). Restoring writes the snapshot's bytes
/// as they are; the store id is not kept: a restored store is another store to its clients.
package enum BackupFile {
    package static let magic = "juice-backup 1"

    /// What a backup holds, read and judged whole.
    package struct Contents: Sendable {
        package var takenAt: Int64
        package var menuJSON: [UInt8]
        package var menu: Menu
        package var calendar: BusinessCalendar
        /// The snapshot's bytes, as `Snapshot.encode` wrote them.
        package var snapshot: [UInt8]
        /// The state they hold, recovered as a start would.
        package var ledger: StockLedger
        package var lsn: UInt64
    }

    /// A backup of `ledger`, the state at journal position `lsn`: the snapshot a compaction would
    /// write now, with the menu and calendar it is read under (`FruitStore.BackupEncoder`).
    package static func encode(_ ledger: StockLedger, lsn: UInt64, takenAt: Int64, hours: HourRecordCache? = nil) -> [UInt8] {
        encode(snapshot: Snapshot.encode(ledger, lsn: lsn, hours: hours), menu: ledger.menu, calendar: ledger.history.calendar, takenAt: takenAt)
    }

    /// The store's encoder for `GET /backup`: with hour records kept from one backup to the
    /// next (`HourRecordCache`), so a repeated backup frames only the hours that changed.
    package static func encoder() -> @Sendable (StockLedger, UInt64, Int64) -> [UInt8] {
        let hours = HourRecordCache()
        return { encode($0, lsn: $1, takenAt: $2, hours: hours) }
    }

    package static func encode(snapshot: [UInt8], menu: Menu, calendar: BusinessCalendar, takenAt: Int64) -> [UInt8] {
        var out = framed(Array("\(magic) \(takenAt)".utf8))
        out += framed(Array("menu ".utf8) + Array(MenuFile.json(menu).utf8))
        out += framed(Array(("calendar " + Storage.calendarText(calendar).dropLast()).utf8))
        out += snapshot
        out += framed(Array("end \(out.count) \(hex(CRC32.checksum(out)))".utf8))
        return out
    }

    /// Reads and judges a backup's bytes; `path` names it in a refusal, with the offset.
    package static func read(_ bytes: [UInt8], path: String, now: Int64 = WallClock.unixSeconds()) throws(StorageError) -> Contents {
        func bad(_ offset: Int, _ reason: String) -> StorageError { .badBackup(path: path, offset: offset, reason: reason) }
        guard !bytes.isEmpty else { throw bad(0, "the file is empty") }
        var parts: [(offset: Int, payload: ArraySlice<UInt8>, next: Int)] = []
        var offset = 0
        while offset < bytes.count {
            switch frame(bytes, at: offset) {
            case .success(let (payload, next)):
                parts.append((offset, payload, next))
                offset = next
            case .failure(let reason):
                throw bad(offset, reason.text)
            }
            if parts.last.map({ text($0.payload).hasPrefix("end ") }) == true { break }
        }
        guard parts.count >= 1, let taken = field(parts[0].payload, after: magic + " ").flatMap({ Int64($0) }) else {
            // Another format of ours (a newer juice-server's) says so: it is not damage.
            if let format = parts.first.flatMap({ field($0.payload, after: "juice-backup ") })?.split(separator: " ").first, format != "1" {
                throw bad(0, "it is a backup in format \(format), and this juice-server reads format 1: use the juice-server that made it, or a newer one")
            }
            throw bad(0, "it does not begin with '\(magic)': not a juice-server backup")
        }
        guard let end = parts.last, text(end.payload).hasPrefix("end ") else {
            throw bad(offset, "cut short: it ends without its end record")
        }
        guard end.next == bytes.count else { throw bad(end.next, "bytes after the end record") }
        let fields = text(end.payload).split(separator: " ")
        guard fields.count == 3, Int(fields[1]) == end.offset, fields[2] == Substring(hex(bytes[..<end.offset].withUnsafeBytes { CRC32.checksum($0) })) else {
            throw bad(end.offset, "the end record does not match the bytes before it (\(end.offset) bytes)")
        }
        guard parts.count >= 5, let menuText = field(parts[1].payload, after: "menu ") else {
            throw bad(parts.count > 1 ? parts[1].offset : 0, "no menu record where it belongs")
        }
        let menuJSON = Array(menuText.utf8)
        guard case .success(let menu) = MenuFile.parse(Data(menuJSON)) else { throw bad(parts[1].offset, "its menu does not read as one") }
        guard let calendarText = field(parts[2].payload, after: "calendar "),
              let calendar = Storage.parseCalendar(calendarText) else {
            throw bad(parts[2].offset, "no calendar record (time zone and day start) where it belongs")
        }
        let start = parts[3].offset
        let snapshot = Array(bytes[start..<end.offset])
        let recovered: Recovery
        do {
            recovered = try Recovery.recover(StockLedger(menu: menu, calendar: calendar), snapshot: Recovery.File(path: path, bytes: snapshot),
                                             journal: nil, now: now)
        } catch {
            if case .corrupt(_, _, let at, let reason) = error { throw bad(start + at, reason) }
            throw error
        }
        return Contents(takenAt: taken, menuJSON: menuJSON, menu: menu, calendar: calendar, snapshot: snapshot,
                        ledger: recovered.ledger, lsn: recovered.snapshotLSN)
    }

    // MARK: - Framing

    private struct Reason: Error { let text: String }

    private static func framed(_ body: [UInt8]) -> [UInt8] {
        Array("\(body.count) \(hex(CRC32.checksum(body))) ".utf8) + body + [0x0A]
    }

    private static func hex(_ crc: UInt32) -> String {
        let digits = String(crc, radix: 16)
        return String(repeating: "0", count: 8 - digits.count) + digits
    }

    /// How many first bytes `begins` needs: the first record is about 40.
    package static let firstRecordBytes = 256

    /// Whether `prefix` (a file's or an answer's first `firstRecordBytes`) starts as a backup
    /// does, a whole first record saying `juice-backup <version>`: checked before a file or an
    /// answer is read whole, so gigabytes of something else are refused at their first bytes.
    package static func begins(_ prefix: [UInt8]) -> Bool {
        guard case .success(let (payload, _)) = frame(prefix, at: 0) else { return false }
        return field(payload, after: "juice-backup ") != nil
    }

    private static func text(_ payload: ArraySlice<UInt8>) -> String { String(decoding: payload.prefix(64), as: UTF8.self) }

    /// The payload after `prefix`, or nil if it does not start with it.
    private static func field(_ payload: ArraySlice<UInt8>, after prefix: String) -> String? {
        let head = Array(prefix.utf8)
        guard payload.count >= head.count, payload.prefix(head.count).elementsEqual(head) else { return nil }
        return String(decoding: payload.dropFirst(head.count), as: UTF8.self)
    }

    /// One framed part: its payload and where the next begins, or why it is not one.
    private static func frame(_ b: [UInt8], at start: Int) -> Result<(ArraySlice<UInt8>, Int), Reason> {
        var i = start
        var length = 0
        while i < b.count, b[i] >= 0x30, b[i] <= 0x39, i - start < 9 {
            length = length * 10 + Int(b[i] - 0x30)
            i += 1
        }
        guard i > start, i < b.count, b[i] == 0x20 else { return .failure(Reason(text: i >= b.count ? "cut short inside a record" : "bad length field")) }
        i += 1
        guard i + 9 <= b.count else { return .failure(Reason(text: "cut short inside a record")) }
        guard let crc = UInt32(String(decoding: b[i..<i + 8], as: UTF8.self), radix: 16), b[i + 8] == 0x20 else {
            return .failure(Reason(text: "bad checksum field"))
        }
        i += 9
        guard i + length + 1 <= b.count else { return .failure(Reason(text: "cut short inside a record")) }
        guard b[i + length] == 0x0A else { return .failure(Reason(text: "a record does not end where its length says")) }
        guard b[i..<i + length].withUnsafeBytes({ CRC32.checksum($0) }) == crc else { return .failure(Reason(text: "checksum mismatch: the record was changed")) }
        return .success((b[i..<i + length], i + length + 1))
    }
}

import Foundation
import JuicePlatform

/// A store's id: random, made when the store is created, kept in `<dir>/store-id` beside the
/// journal (an in-memory store gets a fresh one per run). It is what lets a client resume only
/// the store it followed: `SINCE <seq> store=<id>` and a `Last-Event-ID` of `<id>:<seq>` from
/// another store get the full state, since another store's seq says nothing about this one's
/// changes (PROTOCOL.md, SINCE rule 3).
///
/// Not a journal record: the journal's format is its own, and the id is fixed for the store's
/// life. Written atomically (`AtomicFile`), so a crash leaves the old file or the new one.
enum StoreIdentity {
    static let fileName = "store-id"

    /// 16 lowercase hex digits (64 random bits): two stores never meet with the same one.
    static func fresh() -> String {
        var generator = SystemRandomNumberGenerator()
        let value = generator.next() as UInt64
        let hex = String(value, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }

    /// The id of the store in `directory`. A brand-new store (`brandNew`: no snapshot and no
    /// journal, e.g. a wiped one) always gets a new id, so its clients resync; a store made before
    /// ids existed gets one now and keeps it. A damaged file refuses the start, saying what to do.
    static func load(directory: String, brandNew: Bool) throws(StorageError) -> String {
        let path = directory + "/" + fileName
        if !brandNew, let data = FileManager.default.contents(atPath: path) {
            let text = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            guard isValid(text) else { throw .invalidStoreID(path: path) }
            return text
        }
        let id = fresh()
        do {
            try AtomicFile.write(Array((id + "\n").utf8), to: path, directory: directory)
        } catch let error where error.isOutOfRoom && !brandNew {
            // An old store on a full disk may still start read-only (as `Storage` allows): its
            // id holds for this run, and is written at a start that has room.
            Log.warning("cannot keep the new store id in \(path) (\(error)); using \(id) for this run")
        }
        return id
    }

    /// What a kept id may be: the server's own are hex; 1-64 of a-z A-Z 0-9 . _ - (a `key=`
    /// token's alphabet without `:`, which separates the id from the seq in an event-stream id).
    static func isValid(_ id: String) -> Bool {
        (1...64).contains(id.utf8.count) && id.utf8.allSatisfy { b in
            (0x30...0x39).contains(b) || (0x41...0x5A).contains(b) || (0x61...0x7A).contains(b) || b == 0x2E || b == 0x5F || b == 0x2D
        }
    }
}

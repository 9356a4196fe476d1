import Foundation
import JuiceCore
import JuiceDomain
import JuicePlatform
import JuiceLog

/// A store's id: random, made when the store is created, kept in `<dir>/store-id` beside the
/// journal (an in-memory store gets a fresh one per run). It is what lets a client resume only
/// the store it followed: `SINCE <seq> store=<id>` and a `Last-Event-ID` of `<id>:<seq>` from
/// another store get the full state, since another store's seq says nothing about this one's
/// changes (PROTOCOL.md, SINCE rule 3).
///
/// Not a journal record: the journal's format is its own, and the id is fixed for the store's
/// life. Written atomically (`AtomicFile`), so a crash leaves the old file or the new one.
package enum StoreIdentity {
    package static let fileName = "store-id"

    package static func fresh() -> String { StoreID.fresh() }

    /// The id of the store in `directory`. A brand-new store (`brandNew`: no snapshot and no
    /// journal, e.g. a wiped one) always gets a new id, so its clients resync; a store made before
    /// ids existed gets one now and keeps it. A damaged file refuses the start, saying what to do.
    package static func load(directory: String, brandNew: Bool) throws(StorageError) -> String {
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

    package static func isValid(_ id: String) -> Bool { StoreID.isValid(id) }
}

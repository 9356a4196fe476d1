import Foundation
import JuiceStorage

/// Whether a data directory holds a store with data, judged from its files without opening
/// it: a journal with any record, or a snapshot past a new store's (lsn 0, seq 0). A file that
/// cannot be read as one counts as data: it is never restored over without `--force`.
enum StoreContents {
    /// What the directory holds ("seq 12, 3 journal records"), or nil for none (no files, or a
    /// new store's that never changed).
    static func describe(directory: String) -> String? {
        var found: [String] = []
        if let data = FileManager.default.contents(atPath: directory + "/" + Storage.snapshotName) {
            let read = RecordReader.read([UInt8](data))
            switch read.records.first?.record {
            case .header(let lsn, let seq, _, _)? where read.problem == nil:
                if lsn > 0 || seq > 0 { found.append("a snapshot at seq \(seq)") }
            default:
                found.append("a snapshot that does not read as one")
            }
        }
        if let data = FileManager.default.contents(atPath: directory + "/" + Storage.journalName) {
            let read = RecordReader.read([UInt8](data))
            if !read.records.isEmpty { found.append("\(read.records.count) journal records") }
            else if read.problem != nil { found.append("a journal that does not read as one") }
        }
        return found.isEmpty ? nil : found.joined(separator: ", ")
    }
}

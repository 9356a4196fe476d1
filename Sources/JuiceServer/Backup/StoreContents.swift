import Foundation
import JuiceStorage

/// Whether a data directory holds a store, judged from its files without opening it: any of a
/// store's files (`RestoreCommand.replaced`) is one. Not whether it has data: a store whose seq is
/// 0 may still hold the hours' history, the keys and the tills (which move no seq), and a file
/// that cannot be read is one nobody has looked at; `restore` sets none of them aside unasked.
enum StoreContents {
    /// What the directory holds, for the refusal to say: its data ("a snapshot at seq 12, 3
    /// journal records"), or else its store files ("its files: journal, menu.json"); nil for none.
    static func describe(directory: String) -> String? {
        let present = RestoreCommand.replaced.filter { FileManager.default.fileExists(atPath: directory + "/" + $0) }.sorted()
        guard !present.isEmpty else { return nil }
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
        return found.isEmpty ? "its files: " + present.joined(separator: ", ") : found.joined(separator: ", ")
    }
}

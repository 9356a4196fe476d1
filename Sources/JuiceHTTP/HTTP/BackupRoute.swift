import JuiceCore
import JuiceDomain

/// `GET /backup` (the manager's, with a token configured): the running store's whole state as
/// one file (`BackupFile`: `juice-server verify` checks it, `juice-server restore` makes a data
/// directory of it). The store encodes it in one turn of the loop; the answer is held until the
/// journal is durable up to the state it holds, like every read, so everything acknowledged
/// before the request began is in it. The body goes out as any large answer does, as fast as
/// the client's socket takes it.
enum BackupRoute {
    static let contentType = "application/octet-stream"

    static func answer(_ store: FruitStore) -> (HTTPResponse, lsn: UInt64) {
        guard let backup = store.assumeIsolated({ $0.backup() }) else {
            return (.plain(.serviceUnavailable, "this server was built without backups"), 0)
        }
        let name = "juice-\(BusinessCalendar.dateText(backup.day)).backup"
        return (HTTPResponse(.ok, contentType, body: backup.bytes,
                             headers: [("Content-Disposition", "attachment; filename=\"\(name)\"")]),
                backup.lsn)
    }
}

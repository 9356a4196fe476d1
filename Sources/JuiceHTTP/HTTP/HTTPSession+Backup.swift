/// Backups going out a part at a time are counted (`HTTPProtocol.backupsSending`): each holds
/// its copy of the store until its last part is out, and the store encodes a new copy once the
/// journal moved, so clients that ask and stop reading could otherwise hold a copy each (a
/// megabyte for a 400-day store, times every connection). Past `maxBackupsSending` a
/// `GET /backup` is answered 503 with Retry-After, before anything is encoded.
extension HTTPSession {
    /// The 503 sent (its byte count) when too many backups are going out; nil: go on.
    func refuseBackupWhileBusy() -> Int? {
        guard !holdsBackupSlot, http.backupsSending >= HTTPProtocol.maxBackupsSending else { return nil }
        let busy = HTTPResponse.backupsBusy
        send(busy, keepAlive: false)
        return busy.count
    }

    func takeBackupSlot() {
        guard !holdsBackupSlot else { return }
        holdsBackupSlot = true
        http.backupsSending += 1
    }

    /// Its last part went out, or the connection closed.
    func releaseBackupSlot() {
        guard holdsBackupSlot else { return }
        holdsBackupSlot = false
        http.backupsSending -= 1
    }
}

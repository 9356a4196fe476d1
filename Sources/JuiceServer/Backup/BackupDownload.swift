import Dispatch
import Foundation
import JuicePlatform
import JuiceStorage

/// `GET /backup` from a running server, as `curl` would do it, over one blocking socket: this
/// runs as a command of its own (`juice-server backup`), never inside a server's loop.
///
/// Bounded: the head is at most 64 KiB, the body is exactly its `Content-Length` and at most
/// `maxBytes`, every send or receive that stalls for `stallSeconds` gives up, and so does the
/// whole exchange past `totalSeconds`, so a server that hangs, or one that trickles a byte now
/// and then (never silent for a whole stall), or a stranger on the port cannot hold the
/// nightly job forever.
struct BackupDownload {
    struct Failure: Error, CustomStringConvertible { let description: String }

    /// What the server sent: the body, and the file name it suggested (Content-Disposition).
    struct Answer {
        var bytes: [UInt8]
        var suggestedName: String?
    }

    var host: String
    var port: UInt16
    /// The manager token, or nil where the server has none (loopback only).
    var token: [UInt8]?
    var stallSeconds = 60
    /// The whole answer's time: far more than a backup takes over a shop's network (a 430-day
    /// store's is about a megabyte), and under the nightly unit's TimeoutStartSec (30 min), so
    /// the job ends with this reason, not a kill.
    var totalSeconds = 15 * 60
    var maxBytes = 1 << 32

    func fetch() throws(Failure) -> Answer {
        let fd = try connect()
        defer { Platform.close(fd) }
        var request = Array("GET /backup HTTP/1.1\r\nHost: \(hostHeader)\r\nConnection: close\r\nUser-Agent: juice-server-backup\r\n".utf8)
        if let token { request += Array("Authorization: Bearer ".utf8) + token + Array("\r\n".utf8) }
        request += Array("\r\n".utf8)
        guard Platform.writeAll(fd, request) else { throw Failure(description: "cannot send the request to \(place): \(Platform.describe(errno))") }

        var reader = Reader(fd: fd, download: self)
        let head = try reader.head()
        let lines = String(decoding: head, as: UTF8.self).split(separator: "\r\n", omittingEmptySubsequences: false)
        let statusWords = lines.first?.split(separator: " ", maxSplits: 2) ?? []
        guard statusWords.count >= 2, statusWords[0].hasPrefix("HTTP/1."), let status = Int(statusWords[1]) else {
            throw Failure(description: "\(place) did not answer as an HTTP server (is that juice-server's HTTP port?)")
        }
        var length: Int?
        var name: String?
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let field = line[..<colon].lowercased()
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            if field == "content-length" { length = Int(value) }
            if field == "content-disposition" { name = Self.fileName(in: value) }
        }
        guard status == 200 else {
            // The server's refusal is one short line of text: show it (bounded, never the whole body).
            let body = (try? reader.body(min(length ?? 0, 4096))) ?? []
            let said = String(decoding: body, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            let hint = status == 401 || status == 403 ? " (the manager token: --manager-token-file or JUICE_MANAGER_TOKEN)" : ""
            throw Failure(description: "\(place) answered \(status)\(said.isEmpty ? "" : ": " + said)\(hint)")
        }
        guard let length, length >= 0 else { throw Failure(description: "\(place) sent a backup without a Content-Length") }
        guard length <= maxBytes else { throw Failure(description: "\(place) announced \(length) bytes, more than a backup may be (\(maxBytes))") }
        // Its first record first: something else is refused before megabytes of it are read.
        let first = try reader.body(min(length, BackupFile.firstRecordBytes))
        guard BackupFile.begins(first) else { throw Failure(description: "\(place) did not answer with a juice-server backup") }
        return Answer(bytes: first + (try reader.body(length - first.count)), suggestedName: name)
    }

    /// The server as a URL, for messages: `http://127.0.0.1:7879`, `http://[::1]:7879`.
    var place: String { "http://\(hostHeader)" }
    private var hostHeader: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }

    private func connect() throws(Failure) -> Int32 {
        let addresses: [SocketAddress]
        do { addresses = try SocketAddress.resolve(host: host, port: port) } catch {
            throw Failure(description: "cannot find \(host): \(error)")
        }
        var last = "no address"
        for address in addresses {
            let fd = Platform.makeStreamSocket(family: address.systemFamily, blocking: true)
            guard fd >= 0 else { throw Failure(description: "socket: \(Platform.describe(errno))") }
            // On Linux the send timeout bounds a blocking connect too.
            var stall = timeval(tv_sec: stallSeconds, tv_usec: 0)
            setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &stall, socklen_t(MemoryLayout<timeval>.size))
            setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &stall, socklen_t(MemoryLayout<timeval>.size))
            if address.withSockAddr({ connectSocket(fd, $0, $1) }) == 0 { return fd }
            last = "\(address): \(Platform.describe(errno))"
            Platform.close(fd)
        }
        throw Failure(description: "cannot connect to \(place) (\(last)): is juice-server running, with HTTP on that port?")
    }

    /// `filename="juice-2026-11-27.backup"`, kept only if it is a plain name (no path, no dot first).
    static func fileName(in disposition: String) -> String? {
        guard let range = disposition.range(of: "filename=") else { return nil }
        let name = disposition[range.upperBound...].split(separator: ";").first.map { $0.trimmingCharacters(in: CharacterSet(charactersIn: "\" ")) } ?? ""
        let plain = name.utf8.allSatisfy { $0.isASCIIPlainNameByte }
        return plain && !name.isEmpty && !name.hasPrefix(".") && name.utf8.count <= 128 ? name : nil
    }

    /// Reads the head up to its blank line, then exactly the body's bytes.
    private struct Reader {
        let fd: Int32
        /// Its limits (`stallSeconds`, `totalSeconds`) and its place, for the messages.
        let download: BackupDownload
        /// When the whole answer must be in (monotonic nanoseconds).
        let deadline: UInt64
        var buffered: [UInt8] = []
        var place: String { download.place }

        init(fd: Int32, download: BackupDownload) {
            self.fd = fd
            self.download = download
            deadline = DispatchTime.now().uptimeNanoseconds + UInt64(download.totalSeconds) * 1_000_000_000
        }

        mutating func head() throws(Failure) -> [UInt8] {
            let end: [UInt8] = [13, 10, 13, 10]
            while true {
                if let at = buffered.firstRange(of: end) {
                    let head = Array(buffered[..<at.lowerBound])
                    buffered.removeSubrange(..<at.upperBound)
                    return head
                }
                guard buffered.count < 64 * 1024 else { throw Failure(description: "\(place) sent a head over 64 KiB") }
                guard try fill() else { throw Failure(description: "\(place) closed the connection before its answer's head") }
            }
        }

        mutating func body(_ count: Int) throws(Failure) -> [UInt8] {
            // What the head's reads brought past it is the body's start (and may be more than `count`).
            let take = min(count, buffered.count)
            var bytes = Array(buffered.prefix(take))
            buffered.removeFirst(take)
            bytes.reserveCapacity(min(count, 64 << 20))
            while bytes.count < count {
                let before = bytes.count
                bytes += try receive(max: min(count - before, 1 << 20))
                if bytes.count == before {
                    throw Failure(description: "\(place) closed the connection after \(before) of \(count) bytes: the backup is cut short")
                }
            }
            return bytes
        }

        private mutating func fill() throws(Failure) -> Bool {
            let more = try receive(max: 16 * 1024)
            buffered += more
            return !more.isEmpty
        }

        private func receive(max: Int) throws(Failure) -> [UInt8] {
            var chunk = [UInt8](repeating: 0, count: max)
            while true {
                // Each wait is a stall at most, and never past the deadline.
                let now = DispatchTime.now().uptimeNanoseconds
                guard now < deadline else {
                    throw Failure(description: "\(place) did not send the whole answer within \(download.totalSeconds) s: gave up")
                }
                let left = min(UInt64(download.stallSeconds) * 1_000_000_000, deadline - now)
                var wait = timeval(tv_sec: Int(left / 1_000_000_000), tv_usec: Int(left % 1_000_000_000 / 1000))
                if wait.tv_sec == 0 && wait.tv_usec == 0 { wait.tv_usec = 1 }
                setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &wait, socklen_t(MemoryLayout<timeval>.size))
                let n = chunk.withUnsafeMutableBytes { receiveWaiting(fd, $0) }
                if n >= 0 { return Array(chunk.prefix(n)) }
                let code = errno
                if code == EINTR { continue }
                if code == EAGAIN || code == EWOULDBLOCK {
                    if DispatchTime.now().uptimeNanoseconds >= deadline { continue }  // said above, with the reason
                    throw Failure(description: "\(place) sent nothing for \(download.stallSeconds) s: gave up")
                }
                throw Failure(description: "reading from \(place): \(Platform.describe(code))")
            }
        }
    }
}

/// The system's connect(2), under a name `BackupDownload.connect()` does not hide.
private func connectSocket(_ fd: Int32, _ address: UnsafePointer<sockaddr>, _ length: socklen_t) -> Int32 {
    connect(fd, address, length)
}

/// recv(2) that waits (up to SO_RCVTIMEO): `Platform.receive` never waits, for polled sockets.
private func receiveWaiting(_ fd: Int32, _ buffer: UnsafeMutableRawBufferPointer) -> Int {
    recv(fd, buffer.baseAddress, buffer.count, 0)
}

private extension UInt8 {
    /// Letters, digits, '.', '-', '_': what a file name from a server may hold.
    var isASCIIPlainNameByte: Bool {
        (self >= 0x30 && self <= 0x39) || (self >= 0x41 && self <= 0x5A) || (self >= 0x61 && self <= 0x7A) || self == 0x2E || self == 0x2D || self == 0x5F
    }
}

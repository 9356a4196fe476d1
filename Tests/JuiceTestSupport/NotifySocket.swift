import Foundation
import Glibc

/// A test's own systemd: a Unix datagram socket to hand a child as `NOTIFY_SOCKET`, and the
/// `sd_notify` messages it sends, each a set of `KEY=value` lines. Closed and unlinked on deinit.
public final class NotifySocket: @unchecked Sendable {
    // @unchecked: used from one test at a time.
    public let path: String
    private let directory: String
    private let fd: Int32

    public init() throws {
        directory = temporaryDirectory("juice-notify")
        path = directory + "/notify"
        fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw TestError("socket(AF_UNIX, SOCK_DGRAM): errno \(errno)") }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { throw TestError("socket path too long: \(path)") }
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard bound == 0 else { throw TestError("bind \(path): errno \(errno)") }
    }

    deinit {
        close(fd)
        removeTemporary(directory)
    }

    /// The environment that makes a child speak to this socket.
    public var environment: [String: String] { ["NOTIFY_SOCKET": path] }

    /// The next message (its lines), or nil if none came within `timeout`.
    public func next(timeout: Double = testDeadline) -> [String]? {
        var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        guard poll(&poller, 1, Int32(timeout * 1000)) == 1 else { return nil }
        return receiveNow()
    }

    /// Waits for a message with a line for which `matches` holds, keeping every message read
    /// on the way in `seen`; that line, or nil at `timeout`.
    public func wait(for matches: (String) -> Bool, seen: inout [[String]], timeout: Double = testDeadline) -> String? {
        let deadline = Date().addingTimeInterval(timeout)
        while deadline.timeIntervalSinceNow > 0 {
            guard let message = next(timeout: max(0.01, deadline.timeIntervalSinceNow)) else { return nil }
            seen.append(message)
            if let line = message.first(where: matches) { return line }
        }
        return nil
    }

    /// Every message already queued, without waiting.
    public func drain() -> [[String]] {
        var messages: [[String]] = []
        while let message = receiveNow() { messages.append(message) }
        return messages
    }

    private func receiveNow() -> [String]? {
        var buffer = [UInt8](repeating: 0, count: 4096)
        let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
        guard n > 0 else { return nil }
        return String(decoding: buffer[..<n], as: UTF8.self).split(separator: "\n").map(String.init)
    }
}

import JuiceCore
import JuiceDomain
import JuiceStorage
import JuicePlatform
import JuiceLog
import JuiceLoop
import JuiceServices
import JuiceLine
import JuiceHTTP

/// systemd's `sd_notify` protocol, without libsystemd: one datagram of `KEY=value` lines to the
/// Unix socket named by `$NOTIFY_SOCKET` (a path, or `@name` in the abstract namespace). systemd
/// sets it for a `Type=notify` service; with no `$NOTIFY_SOCKET` there is no notifier and the
/// server behaves as it always did.
///
/// Sends never block (a full socket drops the message: the next ping or status says it again)
/// and never raise SIGPIPE, so the loop may send from its own queue.
public final class ServiceNotifier: Sendable {
    private let fd: Int32
    private let address: [UInt8]

    /// Nil when `environment` has no usable `NOTIFY_SOCKET`.
    public init?(environment: [String: String]) {
        guard let name = environment["NOTIFY_SOCKET"], !name.isEmpty else { return nil }
        var path = Array(name.utf8)
        // "@name": the abstract namespace, where the name starts with a NUL byte.
        if path.first == UInt8(ascii: "@") { path[0] = 0 }
        let capacity = MemoryLayout.size(ofValue: sockaddr_un().sun_path)
        guard path.count < capacity, path.first == 0 || path.first == UInt8(ascii: "/") else { return nil }
        let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return nil }
        self.fd = fd
        address = path
    }

    deinit { Platform.close(fd) }

    /// Sends `lines` ("READY=1", "STATUS=...") as one message. False if it did not go out.
    @discardableResult
    public func send(_ lines: [String]) -> Bool {
        var un = sockaddr_un()
        un.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &un.sun_path) { $0.copyBytes(from: address) }
        // The path's own length: an abstract name is not NUL-terminated, and its length is its end.
        let length = socklen_t(MemoryLayout<sockaddr_un>.offset(of: \.sun_path)! + address.count)
        let message = Array(lines.joined(separator: "\n").utf8)
        let sent = withUnsafePointer(to: &un) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { target in
                message.withUnsafeBytes { sendto(fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT | MSG_NOSIGNAL), target, length) }
            }
        }
        return sent == message.count
    }

    /// The watchdog interval systemd asks for (`$WATCHDOG_USEC`, meant for process `$WATCHDOG_PID`
    /// when that is set), halved as sd_watchdog_enabled(3) advises: microseconds between pings,
    /// or nil when there is no watchdog.
    public static func watchdogPingInterval(environment: [String: String], pid: Int32 = getpid()) -> UInt64? {
        guard let text = environment["WATCHDOG_USEC"], let usec = UInt64(text), usec > 0 else { return nil }
        if let owner = environment["WATCHDOG_PID"], Int32(owner) != pid { return nil }
        return max(1, usec / 2)
    }
}

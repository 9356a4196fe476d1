import Dispatch
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Tells a server's event loop which client sockets are ready. Everything runs on the loop's
/// serial queue: `onReady` fires there when clients may be ready, and the loop then takes them
/// with `poll`, each as (id, readable, writable, hung up). Level-triggered: what a client leaves
/// unread or unwritten is reported again.
///
/// Two implementations: `EpollPoller` (one epoll set for all clients: Linux, the default there)
/// and `DispatchPoller` (a Dispatch source per client: everywhere, kqueue underneath on Darwin).
public protocol ClientPoller: AnyObject {
    /// Starts delivering readiness; call once, before adding clients.
    func start(onReady: @escaping () -> Void)
    /// Starts watching a client for input. `id` comes back with its readiness.
    func add(fd: Int32, id: UInt64) throws(SystemError)
    /// Changes what a client is watched for: input (unless it is closing), output (while pending).
    func watch(fd: Int32, id: UInt64, read: Bool, write: Bool) throws(SystemError)
    /// Stops watching a client and closes its descriptor, now or as soon as nothing in the
    /// system still refers to it. The caller must not close it itself.
    func removeAndClose(fd: Int32, id: UInt64)
    /// Hands the ready clients to `handle`, without blocking; returns how many.
    func poll(_ handle: (_ id: UInt64, _ readable: Bool, _ writable: Bool, _ hangup: Bool) -> Void) -> Int
    /// Stops delivering readiness for good (after the last client was removed).
    func cancel()
}

public enum ClientPollers {
    /// The poller for this platform: epoll on Linux, unless the environment variable
    /// `JUICE_POLLER=dispatch` asks for the portable one (so CI runs the Darwin code path);
    /// Dispatch sources everywhere else.
    public static func make(queue: DispatchQueue, choice: String? = selected) throws(SystemError) -> any ClientPoller {
        #if canImport(CEpoll)
        if choice != "dispatch" { return try EpollPoller(queue: queue) }
        #endif
        return DispatchPoller(queue: queue)
    }

    /// `JUICE_POLLER` from the environment, or nil.
    public static var selected: String? {
        getenv("JUICE_POLLER").map { String(cString: $0) }
    }
}

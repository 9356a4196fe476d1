import Glibc

/// Binds `fd` to 127.0.0.1 on a port the kernel picks (port 0), listening with `backlog` when
/// given: the port it got, or nil with `errno` saying why. For a test's own listener, or for a
/// port that was free a moment ago (bound, then closed by the caller).
public func bindLoopbackPortZero(_ fd: Int32, listenBacklog backlog: Int32? = nil) -> Int? {
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            bind(fd, $0, length) == 0 && (backlog.map { listen(fd, $0) == 0 } ?? true) && getsockname(fd, $0, &length) == 0
        }
    }
    return bound ? Int(UInt16(bigEndian: address.sin_port)) : nil
}

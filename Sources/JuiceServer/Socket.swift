import Glibc

/// One flat error for every socket call that can fail; `errno` says why.
public enum SocketError: Error, Equatable, CustomStringConvertible {
    case badAddress(String)
    case failed(call: String, errno: Int32)

    public var description: String {
        switch self {
        case .badAddress(let host): return "'\(host)' is not an IPv4 or IPv6 address"
        case .failed(let call, let code): return "\(call) failed: \(String(cString: strerror(code)))"
        }
    }

    public var errno: Int32? {
        if case .failed(_, let code) = self { return code }
        return nil
    }
}

/// What a non-blocking send or receive did. `wouldBlock` is flow control, not a failure.
enum IOResult: Equatable {
    case done(Int)
    case wouldBlock
    case closed
    case failed(Int32)
}

/// Thin wrappers over POSIX socket calls, with the options a line server wants.
enum Socket {
    /// A listening TCP socket on host:port (port 0 lets the kernel pick), non-blocking.
    static func listen(host: String, port: Int, backlog: Int32 = 1024) throws(SocketError) -> (fd: Int32, port: Int) {
        var storage = sockaddr_storage()
        let length: socklen_t
        let family: Int32
        if let v4 = ipv4(host, port: port) {
            withUnsafeMutableBytes(of: &storage) { $0.storeBytes(of: v4, as: sockaddr_in.self) }
            length = socklen_t(MemoryLayout<sockaddr_in>.size)
            family = AF_INET
        } else if let v6 = ipv6(host, port: port) {
            withUnsafeMutableBytes(of: &storage) { $0.storeBytes(of: v6, as: sockaddr_in6.self) }
            length = socklen_t(MemoryLayout<sockaddr_in6>.size)
            family = AF_INET6
        } else {
            throw .badAddress(host)
        }
        let fd = socket(family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw .failed(call: "socket", errno: Glibc.errno) }
        // A restarted server must bind at once, even with old connections in TIME_WAIT.
        setOption(fd, SOL_SOCKET, SO_REUSEADDR, 1)
        let bound = withUnsafePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
        }
        guard bound == 0 else {
            let code = Glibc.errno
            close(fd)
            throw .failed(call: "bind \(host):\(port)", errno: code)
        }
        guard Glibc.listen(fd, backlog) == 0 else {
            let code = Glibc.errno
            close(fd)
            throw .failed(call: "listen", errno: code)
        }
        return (fd, localPort(fd))
    }

    static func localPort(_ fd: Int32) -> Int {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        _ = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        return port(of: storage)
    }

    /// Accepts one pending connection, already non-blocking and close-on-exec.
    static func accept(_ listener: Int32) -> (fd: Int32, peer: String)? {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let fd = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.accept(listener, $0, &length) }
        }
        guard fd >= 0 else { return nil }
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        return (fd, describe(storage))
    }

    /// Per-client options: no Nagle delay for one-line replies, and keepalive so a peer that
    /// vanished without a FIN is eventually noticed.
    static func configureClient(_ fd: Int32) {
        setOption(fd, Int32(IPPROTO_TCP), TCP_NODELAY, 1)
        setOption(fd, SOL_SOCKET, SO_KEEPALIVE, 1)
        setOption(fd, Int32(IPPROTO_TCP), TCP_KEEPIDLE, 60)
        setOption(fd, Int32(IPPROTO_TCP), TCP_KEEPINTVL, 10)
        setOption(fd, Int32(IPPROTO_TCP), TCP_KEEPCNT, 6)
    }

    static func setOption(_ fd: Int32, _ level: Int32, _ name: Int32, _ value: Int32) {
        var v = value
        _ = setsockopt(fd, level, name, &v, socklen_t(MemoryLayout<Int32>.size))
    }

    /// MSG_NOSIGNAL: a peer that went away is an EPIPE for this connection, never a SIGPIPE
    /// for the process.
    static func send(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) -> IOResult {
        while true {
            let n = Glibc.send(fd, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL) | Int32(MSG_DONTWAIT))
            if n >= 0 { return .done(n) }
            switch Glibc.errno {
            case EINTR: continue
            case EAGAIN, EWOULDBLOCK: return .wouldBlock
            case let code: return .failed(code)
            }
        }
    }

    static func receive(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer) -> IOResult {
        while true {
            let n = recv(fd, buffer.baseAddress, buffer.count, Int32(MSG_DONTWAIT))
            if n > 0 { return .done(n) }
            // 0 is an orderly shutdown by the peer; errno means nothing then.
            if n == 0 { return .closed }
            switch Glibc.errno {
            case EINTR: continue
            case EAGAIN, EWOULDBLOCK: return .wouldBlock
            case let code: return .failed(code)
            }
        }
    }

    static func isLoopback(_ host: String) -> Bool {
        if let v4 = ipv4(host, port: 0) { return UInt32(bigEndian: v4.sin_addr.s_addr) >> 24 == 127 }
        if let v6 = ipv6(host, port: 0) {
            return withUnsafeBytes(of: v6.sin6_addr) { Array($0) } == Array(repeating: 0, count: 15) + [1]
        }
        return host == "localhost"
    }

    private static func ipv4(_ host: String, port: Int) -> sockaddr_in? {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(truncatingIfNeeded: port)).bigEndian
        let name = host == "localhost" ? "127.0.0.1" : host
        guard inet_pton(AF_INET, name, &address.sin_addr) == 1 else { return nil }
        return address
    }

    private static func ipv6(_ host: String, port: Int) -> sockaddr_in6? {
        var address = sockaddr_in6()
        address.sin6_family = sa_family_t(AF_INET6)
        address.sin6_port = in_port_t(UInt16(truncatingIfNeeded: port)).bigEndian
        let name = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        guard inet_pton(AF_INET6, name, &address.sin6_addr) == 1 else { return nil }
        return address
    }

    private static func port(of storage: sockaddr_storage) -> Int {
        var s = storage
        switch Int32(storage.ss_family) {
        case AF_INET:
            return withUnsafeBytes(of: &s) { Int(UInt16(bigEndian: $0.load(as: sockaddr_in.self).sin_port)) }
        case AF_INET6:
            return withUnsafeBytes(of: &s) { Int(UInt16(bigEndian: $0.load(as: sockaddr_in6.self).sin6_port)) }
        default:
            return 0
        }
    }

    /// "127.0.0.1:50412" or "[::1]:50412", for logs.
    static func describe(_ storage: sockaddr_storage) -> String {
        var s = storage
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
        switch Int32(storage.ss_family) {
        case AF_INET:
            var a = withUnsafeBytes(of: &s) { $0.load(as: sockaddr_in.self) }
            inet_ntop(AF_INET, &a.sin_addr, &text, socklen_t(text.count))
            return cString(text) + ":\(port(of: storage))"
        case AF_INET6:
            var a = withUnsafeBytes(of: &s) { $0.load(as: sockaddr_in6.self) }
            inet_ntop(AF_INET6, &a.sin6_addr, &text, socklen_t(text.count))
            return "[" + cString(text) + "]:\(port(of: storage))"
        default:
            return "unknown"
        }
    }
}

private func cString(_ chars: [CChar]) -> String {
    String(decoding: chars.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
}

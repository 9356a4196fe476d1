import JuicePlatform

/// What a non-blocking send or receive did. `wouldBlock` is flow control, not a failure.
enum IOResult: Equatable {
    case done(Int)
    case wouldBlock
    case closed
    case failed(Int32)
}

/// The server's socket calls, with the options a line server wants. What differs between Linux
/// and Darwin (socket flags, SIGPIPE, keepalive) is behind `Platform`.
enum Socket {
    /// A listening TCP socket on host:port (port 0 lets the kernel pick), non-blocking.
    static func listen(host: String, port: Int, backlog: Int32 = 1024) throws(SystemError) -> (fd: Int32, port: Int) {
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
            throw SystemError("parse address '\(host)' (not an IPv4 or IPv6 address)", EINVAL)
        }
        let fd = Platform.makeStreamSocket(family: family)
        guard fd >= 0 else { throw SystemError("socket") }
        // A restarted server must bind at once, even with old connections in TIME_WAIT.
        Platform.setOption(fd, SOL_SOCKET, SO_REUSEADDR, 1)
        let bound = withUnsafePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
        }
        guard bound == 0 else {
            let error = SystemError("bind \(host):\(port)")
            Platform.close(fd)
            throw error
        }
        guard systemListen(fd, backlog) == 0 else {
            let error = SystemError("listen \(host):\(port)")
            Platform.close(fd)
            throw error
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
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { systemAccept(listener, $0, &length) }
        }
        guard fd >= 0 else { return nil }
        Platform.setNonBlocking(fd)
        Platform.setCloseOnExec(fd)
        Platform.configureAccepted(fd)
        return (fd, describe(storage))
    }

    /// Per-client options: no Nagle delay for one-line replies, and keepalive so a peer that
    /// vanished without a FIN is eventually noticed.
    static func configureClient(_ fd: Int32) {
        Platform.setNoDelay(fd)
        Platform.setKeepAlive(fd, idle: 60, interval: 10, count: 6)
    }

    /// A peer that went away is an EPIPE for this connection, never a SIGPIPE for the process.
    static func send(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) -> IOResult {
        while true {
            let n = Platform.send(fd, bytes.baseAddress, bytes.count, flags: Int32(MSG_DONTWAIT))
            if n >= 0 { return .done(n) }
            switch errno {
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
            switch errno {
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

// The C calls under names the `Socket` methods of the same name do not hide.
private func systemListen(_ fd: Int32, _ backlog: Int32) -> Int32 { listen(fd, backlog) }
private func systemAccept(_ fd: Int32, _ address: UnsafeMutablePointer<sockaddr>, _ length: inout socklen_t) -> Int32 {
    accept(fd, address, &length)
}

private func cString(_ chars: [CChar]) -> String {
    String(decoding: chars.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
}

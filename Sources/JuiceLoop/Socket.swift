import JuiceCore
import JuicePlatform
import JuiceLog

/// What a non-blocking send or receive did. `wouldBlock` is flow control, not a failure.
package enum IOResult: Equatable {
    case done(Int)
    case wouldBlock
    case closed
    case failed(Int32)
}

/// One socket of the server, listening or connected: its descriptor and the calls the server
/// makes on it, with the options a line server wants. What differs between Linux and Darwin
/// (socket flags, SIGPIPE, keepalive) is behind `Platform`. A value: whoever owns the
/// descriptor (an `Acceptor`, the loop's `Connection`) closes it.
package struct Socket: Equatable {
    package let fd: Int32

    /// A listening TCP socket on host:port (port 0 lets the kernel pick), non-blocking.
    package static func listen(host: String, port: Int, backlog: Int32 = 1024) throws(SystemError) -> (socket: Socket, port: Int) {
        guard let port16 = UInt16(exactly: port), let address = SocketAddress(host: host, port: port16) else {
            throw SystemError("parse address '\(host)' (not an IPv4 or IPv6 address)", EINVAL)
        }
        let fd = Platform.makeStreamSocket(family: address.systemFamily)
        guard fd >= 0 else { throw SystemError("socket") }
        // A restarted server must bind at once, even with old connections in TIME_WAIT.
        Platform.setOption(fd, SOL_SOCKET, SO_REUSEADDR, 1)
        guard address.withSockAddr({ bind(fd, $0, $1) }) == 0 else {
            let error = SystemError("bind \(host):\(port)")
            Platform.close(fd)
            throw error
        }
        guard systemListen(fd, backlog) == 0 else {
            let error = SystemError("listen \(host):\(port)")
            Platform.close(fd)
            throw error
        }
        return (Socket(fd: fd), Socket(fd: fd).localPort)
    }

    /// The port it is bound to.
    package var localPort: Int {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        return withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { address -> Int in
                guard getsockname(fd, address, &length) == 0 else { return 0 }
                return SocketAddress(UnsafePointer(address)).map { Int($0.port) } ?? 0
            }
        }
    }

    /// Accepts one pending connection, already non-blocking and close-on-exec.
    package func accept() -> (socket: Socket, peer: String)? {
        let listener = fd
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let (fd, peer) = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { address -> (Int32, String) in
                let fd = systemAccept(listener, address, &length)
                // "127.0.0.1:50412" or "[::1]:50412", for logs and the per-address count.
                return (fd, fd >= 0 ? SocketAddress(UnsafePointer(address))?.description ?? "unknown" : "")
            }
        }
        guard fd >= 0 else { return nil }
        Platform.setNonBlocking(fd)
        Platform.setCloseOnExec(fd)
        Platform.configureAccepted(fd)
        return (Socket(fd: fd), peer)
    }

    /// Per-client options: no Nagle delay for one-line replies, and keepalive so a peer that
    /// vanished without a FIN is eventually noticed.
    package func configureAsClient() {
        Platform.setNoDelay(fd)
        Platform.setKeepAlive(fd, idle: 60, interval: 10, count: 6)
    }

    /// A peer that went away is an EPIPE for this connection, never a SIGPIPE for the process.
    /// Sends up to `count` bytes from `bytes` (an array passes as a pointer, no adapter: a
    /// reply goes out in one call).
    package func send(_ bytes: UnsafeRawPointer?, count: Int) -> IOResult {
        while true {
            let n = Platform.send(fd, bytes, count, flags: Int32(MSG_DONTWAIT))
            if n >= 0 { return .done(n) }
            switch errno {
            case EINTR: continue
            case EAGAIN, EWOULDBLOCK: return .wouldBlock
            case let code: return .failed(code)
            }
        }
    }

    package func receive(into buffer: UnsafeMutableRawBufferPointer) -> IOResult {
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

    package static func isLoopback(_ host: String) -> Bool {
        SocketAddress(host: host, port: 0)?.isLoopback ?? false
    }
}

// The C calls under names the `Socket` methods of the same name do not hide.
private func systemListen(_ fd: Int32, _ backlog: Int32) -> Int32 { listen(fd, backlog) }
private func systemAccept(_ fd: Int32, _ address: UnsafeMutablePointer<sockaddr>, _ length: inout socklen_t) -> Int32 {
    accept(fd, address, &length)
}

import JuicePlatform

/// Where the server listens. IPv4 only: juice-bench is meant for loopback measurements.
struct Endpoint: CustomStringConvertible {
    var host: String
    var port: Int

    var description: String { "\(host):\(port)" }

    func socketAddress() throws(BenchError) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        let numeric = host == "localhost" ? "127.0.0.1" : host
        guard inet_pton(AF_INET, numeric, &address.sin_addr) == 1 else {
            throw BenchError.fatal("--host must be an IPv4 address such as 127.0.0.1, not '\(host)'")
        }
        return address
    }
}

enum Socket {
    /// Creates a non-blocking TCP socket with Nagle disabled and starts connecting it.
    /// Returns the fd; connection completes later (EINPROGRESS), reported as writability.
    static func startConnect(to address: sockaddr_in) throws(BenchError) -> Int32 {
        let fd = Platform.makeStreamSocket(family: AF_INET)
        guard fd >= 0 else {
            throw BenchError.fatal("socket(): \(errnoDescription()) (is the fd limit too low? see ulimit -n)")
        }
        Platform.setNoDelay(fd)
        var address = address
        let rc = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        if rc != 0 && errno != EINPROGRESS {
            let code = errno
            close(fd)
            throw BenchError.fatal(errnoDescription(code))
        }
        return fd
    }

    /// After a non-blocking connect reported writable: 0 if connected, else the errno.
    static func pendingError(_ fd: Int32) -> Int32 {
        var code: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        if getsockopt(fd, SOL_SOCKET, SO_ERROR, &code, &length) != 0 { return errno }
        return code
    }

}

enum ProcessSetup {
    /// 10,000 connections need 10,000 descriptors: raise the soft limit as far as allowed.
    /// Returns the resulting soft limit.
    @discardableResult
    static func raiseFileLimit() -> UInt64 {
        Platform.raiseOpenFileLimit()?.soft ?? 0
    }

    /// A server closing on us must surface as an error from send(), not kill the process.
    /// (Sends also go through Platform.send, which never raises it; this covers everything else.)
    static func ignoreBrokenPipe() {
        signal(SIGPIPE, SIG_IGN)
    }
}

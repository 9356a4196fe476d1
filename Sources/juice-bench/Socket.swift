import Glibc

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
        let type = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
        let fd = socket(AF_INET, type, 0)
        guard fd >= 0 else {
            throw BenchError.fatal("socket(): \(errnoDescription()) (is the fd limit too low? see ulimit -n)")
        }
        setNoDelay(fd)
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

    /// Requests are small and latency-sensitive: never let Nagle hold them back.
    static func setNoDelay(_ fd: Int32) {
        var on: Int32 = 1
        _ = setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &on, socklen_t(MemoryLayout<Int32>.size))
    }
}

enum ProcessSetup {
    /// 10,000 connections need 10,000 descriptors: raise the soft limit as far as allowed.
    /// Returns the resulting soft limit.
    @discardableResult
    static func raiseFileLimit() -> UInt64 {
        var limit = rlimit()
        guard getrlimit(RLIMIT_NOFILE_VALUE, &limit) == 0 else { return 0 }
        if limit.rlim_cur < limit.rlim_max {
            limit.rlim_cur = limit.rlim_max
            _ = setrlimit(RLIMIT_NOFILE_VALUE, &limit)
            _ = getrlimit(RLIMIT_NOFILE_VALUE, &limit)
        }
        return UInt64(limit.rlim_cur)
    }

    /// A server closing on us must surface as an error from send(), not kill the process.
    /// (Sends also pass MSG_NOSIGNAL; this covers everything else.)
    static func ignoreBrokenPipe() {
        signal(SIGPIPE, SIG_IGN)
    }
}

/// RLIMIT_NOFILE is imported as an enum case on glibc; the functions want its raw value.
private let RLIMIT_NOFILE_VALUE = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)

import JuicePlatform

/// Where the server listens: a numeric IPv4 or IPv6 address (or localhost), read by
/// JuicePlatform's `SocketAddress`, the one address parser of the project.
struct Endpoint: CustomStringConvertible {
    var host: String
    var port: Int

    var description: String { "\(host):\(port)" }

    func socketAddress() throws(BenchError) -> SocketAddress {
        guard let port = UInt16(exactly: port), let address = SocketAddress(host: host, port: port) else {
            throw BenchError.fatal("--host must be a numeric address such as 127.0.0.1 or ::1, not '\(host)'")
        }
        return address
    }
}

enum Socket {
    /// Creates a non-blocking TCP socket with Nagle disabled and starts connecting it.
    /// Returns the fd; connection completes later (EINPROGRESS), reported as writability.
    static func startConnect(to address: SocketAddress) throws(BenchError) -> Int32 {
        do {
            return try Platform.startConnect(to: address).fd
        } catch {
            throw BenchError.fatal("\(error) (is the fd limit too low? see ulimit -n)")
        }
    }

    /// After a non-blocking connect reported writable: 0 if connected, else the errno.
    static func pendingError(_ fd: Int32) -> Int32 {
        Platform.connectError(fd)
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

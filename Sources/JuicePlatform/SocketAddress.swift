#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An IPv4 or IPv6 socket address (like FlyingSocks' `SocketAddress`): the one place that turns
/// "127.0.0.1", "::1", "[::1]" or "localhost" plus a port into a `sockaddr`, and back into text.
/// The server (listen, accept, the loopback rule), juice-bench and the clients (JuiceClient,
/// juice-board, juice-till) all use it.
public struct SocketAddress: Sendable, Equatable, CustomStringConvertible {
    public enum Family: Sendable, Equatable { case ipv4, ipv6 }

    /// The raw address, big-endian as the kernel wants it. Kept as bytes so the type is Sendable.
    private let storage: [UInt8]
    public let family: Family
    public let port: UInt16

    /// A numeric address: an IPv4 dotted quad, an IPv6 address (optionally in brackets), or
    /// "localhost" (127.0.0.1). Nil for anything else (a host name: see `resolve`).
    public init?(host: String, port: UInt16) {
        self.port = port
        var v4 = in_addr()
        var v6 = in6_addr()
        let name = host == "localhost" ? "127.0.0.1" : host
        let bare = name.hasPrefix("[") && name.hasSuffix("]") ? String(name.dropFirst().dropLast()) : name
        if inet_pton(AF_INET, name, &v4) == 1 {
            family = .ipv4
            storage = withUnsafeBytes(of: v4) { Array($0) }
        } else if inet_pton(AF_INET6, bare, &v6) == 1 {
            family = .ipv6
            storage = withUnsafeBytes(of: v6) { Array($0) }
        } else {
            return nil
        }
    }

    /// Every address `host` names, IPv4 first (so "localhost" resolving to ::1 first still
    /// reaches a server on 127.0.0.1): a numeric host at once, a name through getaddrinfo, which
    /// blocks, so call it from a thread that may wait (never a concurrency or Dispatch loop).
    public static func resolve(host: String, port: UInt16) throws(SystemError) -> [SocketAddress] {
        if let numeric = SocketAddress(host: host, port: port) { return [numeric] }
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Platform.streamSocketType
        var list: UnsafeMutablePointer<addrinfo>? = nil
        let status = getaddrinfo(host, String(port), &hints, &list)
        guard status == 0, let list else { throw SystemError("resolve \(host)", status == EAI_SYSTEM ? errno : EINVAL) }
        defer { freeaddrinfo(list) }
        var found: [SocketAddress] = []
        var cursor: UnsafeMutablePointer<addrinfo>? = list
        while let entry = cursor {
            if let address = SocketAddress(entry.pointee.ai_addr) { found.append(address) }
            cursor = entry.pointee.ai_next
        }
        found.sort { ($0.family == .ipv4 ? 0 : 1) < ($1.family == .ipv4 ? 0 : 1) }
        guard !found.isEmpty else { throw SystemError("resolve \(host)", EINVAL) }
        return found
    }

    /// From a kernel `sockaddr` (getaddrinfo, getsockname); nil for another family.
    public init?(_ address: UnsafePointer<sockaddr>?) {
        guard let address else { return nil }
        switch Int32(address.pointee.sa_family) {
        case AF_INET:
            let v4 = UnsafeRawPointer(address).load(as: sockaddr_in.self)
            family = .ipv4
            port = UInt16(bigEndian: v4.sin_port)
            storage = withUnsafeBytes(of: v4.sin_addr) { Array($0) }
        case AF_INET6:
            let v6 = UnsafeRawPointer(address).load(as: sockaddr_in6.self)
            family = .ipv6
            port = UInt16(bigEndian: v6.sin6_port)
            storage = withUnsafeBytes(of: v6.sin6_addr) { Array($0) }
        default:
            return nil
        }
    }

    /// The address itself, network order: 4 bytes (IPv4) or 16 (IPv6). For matching it
    /// against a range (`--trusted-proxy`).
    public var addressBytes: [UInt8] { storage }

    /// AF_INET or AF_INET6, for socket().
    public var systemFamily: Int32 { family == .ipv4 ? AF_INET : AF_INET6 }

    /// Calls `body` with the address as a `sockaddr` and its length (for bind and connect).
    public func withSockAddr<T>(_ body: (UnsafePointer<sockaddr>, socklen_t) -> T) -> T {
        switch family {
        case .ipv4: return withKernelForm(sockaddr_in(), \.sin_family, \.sin_port, \.sin_addr, body)
        case .ipv6: return withKernelForm(sockaddr_in6(), \.sin6_family, \.sin6_port, \.sin6_addr, body)
        }
    }

    /// Fills `empty` (a `sockaddr_in` or `sockaddr_in6`; the key paths name its fields) and
    /// hands it to `body` as the generic `sockaddr` with its length.
    private func withKernelForm<Kernel, Address, T>(
        _ empty: Kernel, _ familyField: WritableKeyPath<Kernel, sa_family_t>,
        _ portField: WritableKeyPath<Kernel, in_port_t>, _ addressField: WritableKeyPath<Kernel, Address>,
        _ body: (UnsafePointer<sockaddr>, socklen_t) -> T
    ) -> T {
        var kernel = empty
        kernel[keyPath: familyField] = sa_family_t(systemFamily)
        kernel[keyPath: portField] = port.bigEndian
        withUnsafeMutableBytes(of: &kernel[keyPath: addressField]) { $0.copyBytes(from: storage) }
        return withUnsafePointer(to: &kernel) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, socklen_t(MemoryLayout<Kernel>.size)) }
        }
    }

    /// 127.0.0.0/8 or ::1 (localhost parses as 127.0.0.1).
    public var isLoopback: Bool {
        family == .ipv4 ? storage[0] == 127 : storage == Array(repeating: 0, count: 15) + [1]
    }

    /// "127.0.0.1:7878" or "[::1]:7878".
    public var description: String {
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
        storage.withUnsafeBytes { _ = inet_ntop(systemFamily, $0.baseAddress, &text, socklen_t(text.count)) }
        let host = String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return family == .ipv4 ? "\(host):\(port)" : "[\(host)]:\(port)"
    }
}

extension Platform {
    /// Starts a non-blocking TCP connect (close-on-exec, no Nagle). Returns the socket and whether
    /// it is already connected; when not, wait for it to be writable and call `connectError`.
    public static func startConnect(to address: SocketAddress) throws(SystemError) -> (fd: Int32, connected: Bool) {
        let fd = makeStreamSocket(family: address.systemFamily)
        guard fd >= 0 else { throw SystemError("socket") }
        setNoDelay(fd)
        let status = address.withSockAddr { connect(fd, $0, $1) }
        if status == 0 { return (fd, true) }
        let code = errno
        guard code == EINPROGRESS || code == EINTR else {
            close(fd)
            throw SystemError("connect \(address)", code)
        }
        return (fd, false)
    }

    /// After a connecting socket became writable: 0 if the connect worked, else its errno.
    public static func connectError(_ fd: Int32) -> Int32 {
        var error: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        guard getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length) == 0 else { return errno }
        return error
    }
}

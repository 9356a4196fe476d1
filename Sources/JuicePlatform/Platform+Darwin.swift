#if canImport(Darwin)
import Darwin
import Foundation

// Darwin (macOS, iOS): no socket-type flags (fcntl after socket), SO_NOSIGPIPE instead of
// MSG_NOSIGNAL, TCP_KEEPALIVE for the idle time, F_FULLFSYNC because fsync there stops at the
// drive's cache, and plain Int32 resource numbers. Not built by CI (which runs Linux): kept
// small, and written against the Darwin headers.
extension Platform {
    static let noSignalFlag: Int32 = 0

    /// SOCK_STREAM as the Int32 that addrinfo and socket() take.
    public static let streamSocketType: Int32 = SOCK_STREAM

    /// A TCP socket, close-on-exec, and non-blocking unless `blocking`.
    public static func makeStreamSocket(family: Int32, blocking: Bool = false) -> Int32 {
        let fd = socket(family, SOCK_STREAM, 0)
        guard fd >= 0 else { return fd }
        setCloseOnExec(fd)
        if !blocking { setNonBlocking(fd) }
        setOption(fd, SOL_SOCKET, SO_NOSIGPIPE, 1)
        return fd
    }

    /// SIGPIPE is a property of the socket here: set it on every accepted one too.
    public static func configureAccepted(_ fd: Int32) {
        setOption(fd, SOL_SOCKET, SO_NOSIGPIPE, 1)
    }

    /// Keepalive probes after `idle` seconds of silence, every `interval` seconds, `count` times.
    /// Bytes written to a socket that are still in its send buffer (SO_NWRITE), or nil.
    public static func unacknowledgedBytes(_ fd: Int32) -> Int? {
        var count: Int32 = 0
        var size = socklen_t(MemoryLayout<Int32>.size)
        return getsockopt(fd, SOL_SOCKET, SO_NWRITE, &count, &size) == 0 ? Int(count) : nil
    }

    public static func setKeepAlive(_ fd: Int32, idle: Int32, interval: Int32, count: Int32) {
        setOption(fd, SOL_SOCKET, SO_KEEPALIVE, 1)
        setOption(fd, IPPROTO_TCP, TCP_KEEPALIVE, idle)
        setOption(fd, IPPROTO_TCP, TCP_KEEPINTVL, interval)
        setOption(fd, IPPROTO_TCP, TCP_KEEPCNT, count)
    }

    /// Makes written data durable. fsync on Darwin only hands the data to the drive, whose cache
    /// can still lose it at power-off; F_FULLFSYNC asks the drive to flush. Filesystems that do
    /// not support it (some network mounts) get fsync. 0 or -1 with errno, like the calls.
    public static func syncData(_ fd: Int32) -> Int32 {
        if fcntl(fd, F_FULLFSYNC) == 0 { return 0 }
        return fsync(fd)
    }

    /// Makes a file (data and metadata) or a directory durable: F_FULLFSYNC, for the reason above.
    public static func syncFile(_ fd: Int32) -> Int32 {
        syncData(fd)
    }

    /// setrlimit refuses a soft limit above kern.maxfilesperproc, even when the hard limit is
    /// "unlimited" (as it often is on macOS).
    static var openFileCeiling: UInt64 {
        var value: Int32 = 0
        var size = MemoryLayout<Int32>.size
        guard sysctlbyname("kern.maxfilesperproc", &value, &size, nil, 0) == 0, value > 0 else { return UInt64(OPEN_MAX) }
        return UInt64(value)
    }

    static func getOpenFileLimit(_ limit: inout rlimit) -> Int32 {
        getrlimit(RLIMIT_NOFILE, &limit)
    }

    static func setOpenFileLimit(_ limit: inout rlimit) -> Int32 {
        setrlimit(RLIMIT_NOFILE, &limit)
    }

    /// getrusage(2)'s "this process".
    static let rusageSelf = RUSAGE_SELF

    /// Puts a plain C handler (no SA_SIGINFO) in `action`, in Darwin's name for the field.
    static func setPlainHandler(_ handler: @convention(c) (Int32) -> Void, in action: inout sigaction) {
        action.__sigaction_u.__sa_handler = handler
    }

    /// There is no /proc here: nothing to read (callers report the figure as unknown).
    public static func readProcFile(_ path: String) -> String? {
        nil
    }

    /// Resident memory of another process, in KiB. There is no /proc here: ask ps(1) (macOS
    /// only; iOS runs no other processes to measure).
    public static func residentKilobytes(pid: Int32) -> Int? {
        #if os(macOS)
        let ps = Process()
        ps.executableURL = URL(fileURLWithPath: "/bin/ps")
        ps.arguments = ["-o", "rss=", "-p", String(pid)]
        let out = Pipe()
        ps.standardOutput = out
        ps.standardError = FileHandle.nullDevice
        guard (try? ps.run()) != nil else { return nil }
        let data = out.fileHandleForReading.readDataToEndOfFile()
        ps.waitUntilExit()
        return Int(String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
        #else
        return nil
        #endif
    }

    /// Names the calling thread (Darwin names only the calling one; 63 bytes kept). See the
    /// Linux file for why not `Thread.name`.
    public static func nameCurrentThread(_ name: String) {
        var cut = Substring(name)
        while cut.utf8.count > 63 { cut = cut.dropLast() }
        _ = pthread_setname_np(String(cut))
    }

    /// The calling thread's name ("" if it cannot be read).
    public static func currentThreadName() -> String {
        var buffer = [CChar](repeating: 0, count: 64)
        guard pthread_getname_np(pthread_self(), &buffer, buffer.count) == 0 else { return "" }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

#endif

#if canImport(Glibc)
import Glibc

// Linux: socket flags at creation, MSG_NOSIGNAL per send, TCP_KEEPIDLE, fdatasync, and glibc's
// own type names for resources and handlers.
extension Platform {
    static let noSignalFlag = Int32(MSG_NOSIGNAL)

    /// SOCK_STREAM as the Int32 that addrinfo and socket() take.
    public static let streamSocketType: Int32 = Int32(SOCK_STREAM.rawValue)

    /// A TCP socket, close-on-exec, and non-blocking unless `blocking`.
    public static func makeStreamSocket(family: Int32, blocking: Bool = false) -> Int32 {
        let type = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | (blocking ? 0 : Int32(SOCK_NONBLOCK.rawValue))
        return socket(family, type, 0)
    }

    /// Bytes written to a socket that its peer has not acknowledged yet (SIOCOUTQ), or nil.
    /// A peer that reads acknowledges promptly; one that stopped reading leaves them there once
    /// its receive buffer is full.
    public static func unacknowledgedBytes(_ fd: Int32) -> Int? {
        var count: Int32 = 0
        return ioctl(fd, UInt(TIOCOUTQ), &count) == 0 ? Int(count) : nil
    }

    /// Nothing to do for an accepted socket here: MSG_NOSIGNAL goes with each send.
    public static func configureAccepted(_ fd: Int32) {}

    /// Keepalive probes after `idle` seconds of silence, every `interval` seconds, `count` times.
    public static func setKeepAlive(_ fd: Int32, idle: Int32, interval: Int32, count: Int32) {
        setOption(fd, SOL_SOCKET, SO_KEEPALIVE, 1)
        setOption(fd, Int32(IPPROTO_TCP), TCP_KEEPIDLE, idle)
        setOption(fd, Int32(IPPROTO_TCP), TCP_KEEPINTVL, interval)
        setOption(fd, Int32(IPPROTO_TCP), TCP_KEEPCNT, count)
    }

    /// Makes written data durable: fdatasync, which on Linux reaches the disk (and skips the
    /// metadata a preallocated file does not need). 0 or -1 with errno, like the call.
    public static func syncData(_ fd: Int32) -> Int32 {
        fdatasync(fd)
    }

    /// Makes a file (data and metadata) or a directory entry durable: fsync.
    public static func syncFile(_ fd: Int32) -> Int32 {
        fsync(fd)
    }

    static let openFileCeiling = UInt64.max

    static func getOpenFileLimit(_ limit: inout rlimit) -> Int32 {
        getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit)
    }

    static func setOpenFileLimit(_ limit: inout rlimit) -> Int32 {
        setrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit)
    }

    /// getrusage(2)'s "this process", in glibc's type.
    static let rusageSelf = __rusage_who_t(RUSAGE_SELF.rawValue)

    /// Puts a plain C handler (no SA_SIGINFO) in `action`, in glibc's name for the field.
    static func setPlainHandler(_ handler: @convention(c) (Int32) -> Void, in action: inout sigaction) {
        action.__sigaction_handler.sa_handler = handler
    }

    /// Resident memory of another process, in KiB, from the VmRSS line of /proc/PID/status.
    public static func residentKilobytes(pid: Int32) -> Int? {
        guard let status = readProcFile("/proc/\(pid)/status") else { return nil }
        for line in status.split(separator: "\n") where line.hasPrefix("VmRSS:") {
            // "VmRSS:\t   12345 kB"
            if let number = line.split(whereSeparator: { $0 == " " || $0 == "\t" }).dropFirst().first {
                return Int(number)
            }
        }
        return nil
    }

    /// A /proc file's whole text. Read to EOF by hand: these files report size 0, and
    /// Foundation's String(contentsOfFile:) stops after the first page of a long one
    /// (/proc/net/tcp on a busy machine).
    public static func readProcFile(_ path: String) -> String? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { break }
            bytes += chunk[0..<n]
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Names the calling thread as /proc, `top -H`, perf and juice-bench show it: Linux keeps
    /// 15 bytes, so a longer name is cut (at a character's edge). Why not `Thread.name`:
    /// Foundation sets that only once `start()` has stored the thread's handle, so a thread
    /// that runs before its starter returns (a busy machine) silently stays unnamed, and one
    /// named before `start()` is never named at all.
    public static func nameCurrentThread(_ name: String) {
        var cut = Substring(name)
        while cut.utf8.count > 15 { cut = cut.dropLast() }
        typealias SetName = @convention(c) (pthread_t, UnsafePointer<CChar>) -> Int32
        // Glibc's module leaves out the GNU-only declarations; the symbol is always there.
        guard let symbol = dlsym(nil, "pthread_setname_np") else { return }
        _ = unsafeBitCast(symbol, to: SetName.self)(pthread_self(), String(cut))
    }

    /// The calling thread's name as the kernel keeps it ("" if it cannot be read).
    public static func currentThreadName() -> String {
        typealias GetName = @convention(c) (pthread_t, UnsafeMutablePointer<CChar>, Int) -> Int32
        guard let symbol = dlsym(nil, "pthread_getname_np") else { return "" }
        var buffer = [CChar](repeating: 0, count: 16)
        guard unsafeBitCast(symbol, to: GetName.self)(pthread_self(), &buffer, buffer.count) == 0 else { return "" }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

#endif

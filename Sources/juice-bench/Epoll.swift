import Glibc

/// A thin wrapper around Linux epoll, level-triggered.
///
/// Swift's Glibc module does not include <sys/epoll.h>, and this package has no C targets,
/// so the three functions are looked up with dlsym and called through C function pointers
/// (the C calling convention is honoured by `@convention(c)`). `struct epoll_event` is
/// handled as raw bytes because on x86_64 it is packed (12 bytes, data at offset 4).
final class Epoll {
    static let readable: UInt32 = 0x001   // EPOLLIN
    static let writable: UInt32 = 0x004   // EPOLLOUT
    static let error: UInt32 = 0x008      // EPOLLERR
    static let hangUp: UInt32 = 0x010     // EPOLLHUP

    private typealias CreateFunction = @convention(c) (Int32) -> Int32
    private typealias ControlFunction = @convention(c) (Int32, Int32, Int32, UnsafeMutableRawPointer?) -> Int32
    private typealias WaitFunction = @convention(c) (Int32, UnsafeMutableRawPointer?, Int32, Int32) -> Int32

    private static let controlAdd: Int32 = 1, controlDelete: Int32 = 2, controlModify: Int32 = 3
    private static let closeOnExec: Int32 = 0o2000000
    #if arch(x86_64)
    private static let eventSize = 12, dataOffset = 4
    #else
    private static let eventSize = 16, dataOffset = 8
    #endif

    private let control: ControlFunction
    private let waitFunction: WaitFunction
    private let fd: Int32
    private let events: UnsafeMutableRawPointer
    let capacity: Int
    /// A single reusable event for epoll_ctl.
    private let controlEvent: UnsafeMutableRawPointer

    init(capacity: Int = 1024) throws(BenchError) {
        let libc = dlopen(nil, RTLD_NOW)
        guard let create = dlsym(libc, "epoll_create1"), let ctl = dlsym(libc, "epoll_ctl"),
              let wait = dlsym(libc, "epoll_wait") else {
            throw BenchError.fatal("epoll is not available on this system")
        }
        control = unsafeBitCast(ctl, to: ControlFunction.self)
        waitFunction = unsafeBitCast(wait, to: WaitFunction.self)
        fd = unsafeBitCast(create, to: CreateFunction.self)(Self.closeOnExec)
        guard fd >= 0 else { throw BenchError.fatal("epoll_create1: \(errnoDescription())") }
        self.capacity = capacity
        events = .allocate(byteCount: capacity * Self.eventSize, alignment: 8)
        controlEvent = .allocate(byteCount: Self.eventSize, alignment: 8)
    }

    deinit {
        close(fd)
        events.deallocate()
        controlEvent.deallocate()
    }

    func add(_ socket: Int32, token: Int, interest: UInt32) {
        apply(Self.controlAdd, socket, token: token, interest: interest)
    }

    func modify(_ socket: Int32, token: Int, interest: UInt32) {
        apply(Self.controlModify, socket, token: token, interest: interest)
    }

    func remove(_ socket: Int32) {
        _ = control(fd, Self.controlDelete, socket, controlEvent)
    }

    private func apply(_ operation: Int32, _ socket: Int32, token: Int, interest: UInt32) {
        controlEvent.storeBytes(of: interest, toByteOffset: 0, as: UInt32.self)
        controlEvent.storeBytes(of: UInt64(token), toByteOffset: Self.dataOffset, as: UInt64.self)
        if control(fd, operation, socket, controlEvent) != 0 {
            // Only programming errors get here (bad fd, double add); make them loud.
            fatalError("epoll_ctl(\(operation), fd \(socket)): \(errnoDescription())")
        }
    }

    /// Waits up to `timeoutMilliseconds` and returns how many events are ready.
    func wait(timeoutMilliseconds: Int32) -> Int {
        let n = waitFunction(fd, events, Int32(capacity), timeoutMilliseconds)
        return n < 0 ? 0 : Int(n)   // EINTR (a signal) just means "look again"
    }

    @inline(__always)
    func token(at index: Int) -> Int {
        Int(events.loadUnaligned(fromByteOffset: index * Self.eventSize + Self.dataOffset, as: UInt64.self))
    }

    @inline(__always)
    func flags(at index: Int) -> UInt32 {
        events.loadUnaligned(fromByteOffset: index * Self.eventSize, as: UInt32.self)
    }
}

func errnoDescription(_ code: Int32 = errno) -> String {
    String(cString: strerror(code))
}

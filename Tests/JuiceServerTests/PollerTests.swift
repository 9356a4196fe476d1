import Dispatch
import Foundation
import JuiceCore
import JuiceDomain
import JuiceStorage
import JuicePlatform
import JuiceLog
import JuiceLoop
import JuiceServices
import JuiceLine
import JuiceHTTP
@testable import JuiceServer
import Testing

/// The client pollers on their own, over socket pairs: readiness comes back with the right id,
/// write interest works, removal closes the descriptor, and a descriptor the poller cannot watch
/// is an error the server hears about (not a client silently never served).
@Suite(.onOwnThreads) struct PollerTests {
    enum Kind: String, CaseIterable, Sendable {
        case epoll, dispatch
    }

    /// Every poller this platform has.
    static var kinds: [Kind] {
        #if os(Linux)
        return [.epoll, .dispatch]
        #else
        return [.dispatch]
        #endif
    }

    static func make(_ kind: Kind, queue: DispatchQueue) throws -> any ClientPoller {
        try ClientPollers.make(queue: queue, choice: kind.rawValue)
    }

    /// A connected pair of stream sockets, both non-blocking.
    static func socketPair() throws -> (Int32, Int32) {
        var fds: [Int32] = [0, 0]
        guard socketpair(AF_UNIX, Platform.streamSocketType, 0, &fds) == 0 else { throw SystemError("socketpair") }
        for fd in fds { Platform.setNonBlocking(fd) }
        return (fds[0], fds[1])
    }

    /// Makes a poller, then a socket pair (after it, so neither end can reuse the number of the
    /// poller's own descriptor), and runs `call` with both on the poller's queue, as the server
    /// calls a poller; `call` owns the pair. The error `call` throws, or nil.
    static func refusal(_ kind: Kind, _ call: (any ClientPoller, Int32, Int32) throws(SystemError) -> Void) throws -> SystemError? {
        let queue = DispatchQueue(label: "poller-test")
        let poller = try make(kind, queue: queue)
        defer { queue.sync { poller.cancel() } }
        let (a, b) = try socketPair()
        return queue.sync { () -> SystemError? in
            do throws(SystemError) { try call(poller, a, b) } catch { return error }
            return nil
        }
    }

    /// Collects what the poller reports, on its queue.
    final class Collector: @unchecked Sendable {
        // @unchecked: `events` is touched only on `queue` (handlers there, reads through sync).
        let queue = DispatchQueue(label: "poller-test")
        var events: [(id: UInt64, readable: Bool, writable: Bool)] = []

        func seen(_ wanted: (UInt64, Bool, Bool) -> Bool) -> Bool {
            queue.sync { events.contains { wanted($0.id, $0.readable, $0.writable) } }
        }
    }

    @Test(arguments: kinds)
    func addingAClosedDescriptorFails(kind: Kind) throws {
        // Before the fix, epoll_ctl's EBADF was dropped: the client would never have been read.
        // Not the number of one just closed: another test's thread may open it again at once.
        // Nor the soft limit read here: a suite beside this one may raise it meanwhile (the
        // 2,000-client test does, to 3,000) and open that number. Int32.max is past the most
        // any process may have open (the kernel's nr_open tops out below it): never open.
        let closed = Int32.max
        let error = try Self.refusal(kind) { poller, a, b throws(SystemError) in
            Platform.close(a)
            Platform.close(b)
            try poller.add(fd: closed, id: 1)
        }
        #expect(error?.code == EBADF)
    }

    @Test(arguments: kinds)
    func changingAClientNeverAddedFails(kind: Kind) throws {
        let error = try Self.refusal(kind) { poller, a, b throws(SystemError) in
            defer { Platform.close(a); Platform.close(b) }
            try poller.watch(fd: a, id: 7, read: true, write: true)
        }
        #expect(error != nil)
    }

    @Test(arguments: kinds)
    func readinessComesBackWithTheIdAndRemovalClosesTheDescriptor(kind: Kind) throws {
        let collector = Collector()
        let queue = collector.queue
        let poller = try Self.make(kind, queue: queue)
        defer { queue.sync { poller.cancel() } }
        poller.start { [weak poller] in
            _ = poller?.poll { id, readable, writable, _ in collector.events.append((id, readable, writable)) }
        }
        let (ours, peer) = try Self.socketPair()
        defer { Platform.close(peer) }
        try queue.sync { try poller.add(fd: ours, id: 42) }

        // Input: readable, and nothing about writability (not asked for yet).
        #expect(Platform.writeAll(peer, "PING\n"))
        #expect(eventually { collector.seen { id, readable, _ in id == 42 && readable } })
        #expect(!collector.seen { _, _, writable in writable })

        // Output interest: writable while it is on.
        try queue.sync { try poller.watch(fd: ours, id: 42, read: false, write: true) }
        #expect(eventually { collector.seen { id, _, writable in id == 42 && writable } })
        try queue.sync { try poller.watch(fd: ours, id: 42, read: true, write: false) }

        // Removal closes our end (perhaps a moment later, once Dispatch let go): the peer sees EOF.
        queue.sync { poller.removeAndClose(fd: ours, id: 42) }
        var byte: UInt8 = 0
        #expect(eventually { recv(peer, &byte, 1, 0) == 0 })
    }

    /// The built server reads JUICE_POLLER: run with `epoll` it holds one epoll set more than
    /// with `dispatch` (libdispatch keeps one of its own in both), the EpollPoller's. Each serves
    /// a client either way. CI runs the whole suite with JUICE_POLLER=dispatch in our own
    /// environment, so each child is given its value explicitly.
    @Test func theEnvironmentChoosesThePoller() throws {
        #if os(Linux)
        func epollSets(_ poller: String) throws -> Int {
            let server = try ExecutableServer(["--in-memory", "--no-http"], environment: ["JUICE_POLLER": poller])
            defer { server.stop() }
            #expect(try server.client().command("PING") == "OK PONG", "JUICE_POLLER=\(poller)")
            // -1 is a /proc read that failed (this process short of descriptors for a moment):
            // read again, not counted as a number of epoll sets.
            var sets = -1
            _ = eventually { sets = ProcStat.openFiles(server.pid, named: "anon_inode:[eventpoll]"); return sets >= 0 }
            return sets
        }
        let dispatch = try epollSets("dispatch"), epoll = try epollSets("epoll")
        #expect(dispatch >= 1 && epoll == dispatch + 1, "epoll sets: \(epoll) with epoll, \(dispatch) with dispatch")
        #endif
    }

    /// What each choice makes, in this process: epoll unless `dispatch` is asked for, on Linux.
    @Test func eachChoiceMakesItsPoller() throws {
        let queue = DispatchQueue(label: "poller-test")
        let dispatch = try ClientPollers.make(queue: queue, choice: "dispatch")
        #expect(dispatch is DispatchPoller)
        let standard = try ClientPollers.make(queue: queue, choice: nil)
        #if os(Linux)
        #expect(standard is EpollPoller)
        #else
        #expect(standard is DispatchPoller)
        #endif
    }

    /// A poller that hands the next `refusals` additions to the real one with a descriptor the
    /// kernel (or libdispatch) must refuse, as a watch limit or a dead descriptor would.
    final class RefusingPoller: ClientPoller {
        let inner: any ClientPoller
        var refusals: Int

        init(_ inner: any ClientPoller, refusals: Int) {
            self.inner = inner
            self.refusals = refusals
        }

        func add(fd: Int32, id: UInt64) throws(SystemError) {
            guard refusals > 0 else { return try inner.add(fd: fd, id: id) }
            refusals -= 1
            try inner.add(fd: -1, id: id)
        }

        func start(onReady: @escaping () -> Void) { inner.start(onReady: onReady) }
        func watch(fd: Int32, id: UInt64, read: Bool, write: Bool) throws(SystemError) {
            try inner.watch(fd: fd, id: id, read: read, write: write)
        }
        func removeAndClose(fd: Int32, id: UInt64) { inner.removeAndClose(fd: fd, id: id) }
        func poll(_ handle: (UInt64, Bool, Bool, Bool) -> Void) -> Int { inner.poll(handle) }
        func cancel() { inner.cancel() }
    }

    @Test func aClientThePollerCannotWatchIsClosedAndOthersAreServed() async throws {
        try await RunningServer.with { s in
            let server = s.server
            server.executor.queue.sync {
                server.assumeIsolated { server in
                    guard let running = server.running else { return }
                    running.poller = RefusingPoller(running.poller, refusals: 1)
                }
            }
            // Before the fix the refusal was ignored: this client got its greeting and then no
            // answer to anything, ever.
            let refused = try s.client(readGreeting: false)
            #expect(refused.closedByServer())
            let served = try s.client()
            #expect(try served.command("PING") == "OK PONG")
        }
    }
}

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

/// A browser that sends its request and resets at once (a tab closed, curl interrupted): the
/// answer's send fails and the connection is closed right there. It must be closed once: a
/// second close would close its descriptor number again, which by then may be another
/// client's socket or a journal file.
@Suite(.onOwnThreads) struct HTTPResetTests {
    /// Forwards to the real poller and counts, per client, how often it was removed and closed.
    final class CountingPoller: ClientPoller, @unchecked Sendable {
        // @unchecked: used on the loop queue only.
        let inner: any ClientPoller
        var removals: [UInt64: Int] = [:]

        init(_ inner: any ClientPoller) { self.inner = inner }

        func removeAndClose(fd: Int32, id: UInt64) {
            removals[id, default: 0] += 1
            inner.removeAndClose(fd: fd, id: id)
        }
        func start(onReady: @escaping () -> Void) { inner.start(onReady: onReady) }
        func add(fd: Int32, id: UInt64) throws(SystemError) { try inner.add(fd: fd, id: id) }
        func watch(fd: Int32, id: UInt64, read: Bool, write: Bool) throws(SystemError) {
            try inner.watch(fd: fd, id: id, read: read, write: write)
        }
        func poll(_ handle: (UInt64, Bool, Bool, Bool) -> Void) -> Int { inner.poll(handle) }
        func cancel() { inner.cancel() }
    }

    @Test(arguments: ["GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n", "POST / HTTP/1.1\r\nHost: x\r\n\r\n", "nonsense\r\n"])
    func aRequestWhoseSenderResetIsClosedOnce(request: String) async throws {
        try await RunningServer.with { s in
            let server = s.server
            let http = try #require(await server.httpPort)
            let counting = server.executor.queue.sync {
                server.assumeIsolated { server -> CountingPoller? in
                    guard let running = server.running else { return nil }
                    let counting = CountingPoller(running.poller)
                    running.poller = counting
                    return counting
                }
            }
            let poller = try #require(counting)
            let client = try LineClient.peer(port: http)
            #expect(await eventually { await server.clientCount == 1 }, "the server never accepted the client")
            // The loop waits while the request and the reset both arrive: it reads the request,
            // and its answer meets a reset socket.
            let loopHeld = DispatchSemaphore(value: 0)
            let release = DispatchSemaphore(value: 0)
            server.executor.queue.async {
                loopHeld.signal()
                release.wait()
            }
            loopHeld.wait()
            #expect(client.write(request))
            client.reset()
            release.signal()
            #expect(await eventually { await server.clientCount == 0 }, "the reset client was never closed")
            let removals = server.executor.queue.sync { poller.removals }
            #expect(removals.count == 1)
            #expect(removals.values.allSatisfy { $0 == 1 }, "closed more than once: \(removals)")
            #expect((try? HTTPClient.get(port: http, "/healthz"))?.status == 200)
        }
    }
}

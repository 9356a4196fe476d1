import Testing
import JuicePlatform
import JuiceTestSupport

/// The one address parser the clients use (JuicePlatform's SocketAddress).
@Suite(.onOwnThreads) struct SocketAddressTests {
    @Test func numericAddressesParseAndPrintBack() throws {
        #expect(SocketAddress(host: "127.0.0.1", port: 7878)?.description == "127.0.0.1:7878")
        #expect(SocketAddress(host: "localhost", port: 1)?.description == "127.0.0.1:1")
        #expect(SocketAddress(host: "::1", port: 80)?.description == "[::1]:80")
        #expect(SocketAddress(host: "[::1]", port: 80)?.family == .ipv6)
        #expect(SocketAddress(host: "999.1.1.1", port: 80) == nil)
        #expect(SocketAddress(host: "juice.example", port: 80) == nil)
        #expect(try SocketAddress.resolve(host: "127.0.0.1", port: 5) == [SocketAddress(host: "127.0.0.1", port: 5)!])
        #expect(throws: SystemError.self) { try SocketAddress.resolve(host: "no such host.invalid", port: 5) }
    }

    @Test func aRefusedConnectIsReportedNotHung() throws {
        // Port 1 on loopback: nothing listens there in a test machine.
        let started = try Platform.startConnect(to: SocketAddress(host: "127.0.0.1", port: 1)!)
        defer { Platform.close(started.fd) }
        if !started.connected {
            var ready = pollfd(fd: started.fd, events: Int16(POLLOUT), revents: 0)
            #expect(poll(&ready, 1, 10_000) == 1)
            #expect(Platform.connectError(started.fd) == ECONNREFUSED)
        }
    }
}

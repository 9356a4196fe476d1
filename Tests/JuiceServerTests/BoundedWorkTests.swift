import Foundation
import Glibc
import Testing

/// The work one read can cause is bounded by the output it produces: a client that pipelines
/// thousands of `SINCE 0` and never reads must not stall everyone or balloon memory, and a
/// display that does read still gets every catch-up line, in order.
@Suite(.onOwnThreads) struct BoundedWorkTests {
    static let history = 10_000

    /// A server whose history holds `history` changes (`SET kiwi n`, seq 1...history).
    static func serverWithHistory(_ arguments: [String] = ["--in-memory"]) throws -> ExecutableServer {
        let server = try ExecutableServer(arguments)
        let manager = try server.peer()
        _ = manager.nextLine()  // greeting
        var script = "EVENTS OFF\n"
        for i in 1...history { script += "SET kiwi \(i % 100)\n" }
        script += "PING\n"
        #expect(manager.write(script))
        #expect(manager.nextLine() == .got("OK EVENTS off"))
        for i in 1...history + 1 {
            guard case .got(let line) = manager.nextLine(), i <= history ? line.hasPrefix("OK SET seq=\(i) ") : line == "OK PONG" else {
                Issue.record("setting up the history: reply \(i) missing or wrong")
                break
            }
        }
        manager.close()
        return server
    }

    /// The review's reproduction: 64 KiB of `SINCE 0` (8,192 lines, each worth 10,000 history
    /// lines) in one write, never read. Before, the server built all of it at once (4.7 GB peak
    /// measured) and every other client waited for that; now it runs one SINCE at a time, as
    /// the socket takes the output, so its memory stays flat and others are served.
    @Test func pipelinedSinceFloodNeitherBalloonsMemoryNorStallsOthers() throws {
        let server = try Self.serverWithHistory()
        let before = server.peakRSS
        let hostile = try server.peer(receiveBuffer: 4096)
        _ = hostile.nextLine()
        let flood = Array(String(repeating: "SINCE 0\n", count: 8192).utf8)
        #expect(flood.count == 64 * 1024)
        #expect(hostile.write(flood))
        // Everything the hostile client sent has reached the server (its send returned), and
        // the server is serving it as far as the client reads, which is not at all.
        let other = try server.client()
        #expect(try other.command("PING") == "OK PONG")
        #expect(try other.command("STOCK kiwi").hasPrefix("OK STOCK seq=\(Self.history) "))
        let grown = server.peakRSS - before
        #expect(grown < 64 << 20, "peak RSS grew by \(mebibytes(grown)) for one unread SINCE flood")
        hostile.reset()
        #expect(try other.command("PING") == "OK PONG")
    }

    /// A display that pipelines catch-ups and pings, and reads, gets every line in order: the
    /// commands after a SINCE wait for its catch-up, exactly as if each ran alone.
    @Test func pipelinedCatchUpsArriveWholeAndInOrder() throws {
        let server = try Self.serverWithHistory()
        let display = try server.peer(receiveBuffer: 4096)
        _ = display.nextLine()
        #expect(display.write("SINCE 0\nPING\nSINCE 9990\nPING\nSINCE 0\nSTOCK kiwi\n"))
        func expectCatchUp(from after: Int) {
            guard case .got(let head) = display.nextLine(), head == "OK SINCE \(after) \(Self.history)" else {
                Issue.record("no OK SINCE \(after) header")
                return
            }
            for seq in after + 1...Self.history {
                guard case .got(let line) = display.nextLine(), line == "EVENT STOCK seq=\(seq) kiwi=\(seq % 100)" else {
                    Issue.record("catch-up from \(after): line for seq \(seq) missing or wrong")
                    return
                }
            }
        }
        expectCatchUp(from: 0)
        #expect(display.nextLine() == .got("OK PONG"))
        expectCatchUp(from: 9990)
        #expect(display.nextLine() == .got("OK PONG"))
        expectCatchUp(from: 0)
        #expect(display.nextLine() == .got("OK STOCK seq=\(Self.history) kiwi=0"))
    }

    /// Changes made while a display is catching up reach it after the catch-up, each exactly
    /// once: no gap, no duplicate, in memory and with the journal (where lines wait for fsync).
    @Test(arguments: [false, true])
    func changesDuringACatchUpFollowItWithoutGapOrDuplicate(durable: Bool) throws {
        let directory = temporaryDirectory("juice-catchup")
        defer { removeTemporary(directory) }
        // Events of 100 fruits each: the catch-up (~17 MB) cannot sit whole in the kernel's socket
        // buffers, so it is still streaming, paced by this display, while the changes are made.
        let server = try EventStreamTests.wideServer(orders: Self.history, durable ? ["--data", directory] : ["--in-memory"])
        let display = try server.peer(receiveBuffer: 4096)
        _ = display.nextLine()
        #expect(display.write("SINCE 0\n"))
        guard case .got(let head) = display.nextLine(), head.hasPrefix("OK SINCE 0 ") else {
            Issue.record("no OK SINCE header")
            return
        }
        var expected: UInt64 = 1
        // Take the first few lines, then make changes while the rest of the catch-up waits for
        // this display's full socket.
        for _ in 0..<100 {
            guard case .got(let line) = display.nextLine(), line.hasPrefix("EVENT STOCK seq=\(expected) ") else {
                Issue.record("catch-up line \(expected) missing")
                return
            }
            expected += 1
        }
        let extra = 300
        let manager = try server.peer()
        _ = manager.nextLine()
        manager.write("EVENTS OFF\n")
        _ = manager.nextLine()
        for i in 1...extra {
            manager.write("SET f00 \(i)\n")
            guard case .got(let reply) = manager.nextLine(), reply.hasPrefix("OK SET seq=\(Self.history + i) ") else {
                Issue.record("SET \(i) not answered")
                return
            }
        }
        let last = UInt64(Self.history + extra)
        while expected <= last {
            guard case .got(let line) = display.nextLine(), line.hasPrefix("EVENT STOCK seq=") else {
                Issue.record("stream ended before seq \(expected)")
                return
            }
            let seq = UInt64(line.dropFirst("EVENT STOCK seq=".count).prefix { $0.isNumber }) ?? 0
            guard seq == expected else {
                Issue.record("expected seq \(expected), got \(line)")
                return
            }
            expected += 1
        }
        #expect(display.write("PING\n"))
        #expect(display.nextLine() == .got("OK PONG"), "nothing after seq \(last)")
    }

    /// A client that sends its commands and half-closes (`nc -q`) still gets a whole catch-up
    /// and the replies after it before the server closes.
    @Test func halfClosedClientGetsItsWholeCatchUp() throws {
        let server = try Self.serverWithHistory()
        let client = try server.peer(receiveBuffer: 4096)
        _ = client.nextLine()
        #expect(client.write("SINCE 9000\nPING\n"))
        shutdown(client.fd, Int32(SHUT_WR))
        #expect(client.nextLine() == .got("OK SINCE 9000 \(Self.history)"))
        for seq in 9001...Self.history {
            guard case .got(let line) = client.nextLine(), line.hasPrefix("EVENT STOCK seq=\(seq) ") else {
                Issue.record("seq \(seq) missing")
                return
            }
        }
        #expect(client.nextLine() == .got("OK PONG"))
        #expect(client.nextLine() == .closed)
    }
}

import Foundation
import Glibc
import Testing

/// A stderr nobody reads (a terminal paused with Ctrl-S, a stalled log collector) must cost log
/// lines, never service: the server once wrote its log on the loop and froze as soon as the
/// pipe was full.
@Suite(.onOwnThreads) struct StalledLogTests {
    /// Linux's F_SETPIPE_SZ: the smallest pipe buffer (one page), full after a few dozen lines.
    static let setPipeSize: Int32 = 1031

    @Test func aStderrNobodyReadsDoesNotStopServing() throws {
        let directory = temporaryDirectory("juice-stalled-log")
        defer { removeTemporary(directory) }
        let fifo = directory + "/stderr"
        try #require(mkfifo(fifo, 0o600) == 0, "mkfifo failed: errno \(errno)")
        // The read end, opened first (non-blocking: no writer yet) and never read until the end.
        let reader = open(fifo, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        try #require(reader >= 0)
        defer { close(reader) }
        _ = fcntl(reader, StalledLogTests.setPipeSize, 4096)

        // debug: every connect and disconnect is logged, with no rate limit.
        // 1,500 connections from one address in a row: no per-address share (the default 32 would
        // refuse the cashier while the server still counts the ones just closed).
        let server = try ExecutableServer(["--in-memory", "--log-level", "debug", "--no-http", "--max-clients-per-address", "0"],
                                          stderrPath: fifo)
        // Far more lines than the pipe and the server's log buffer hold together.
        for _ in 0..<1500 {
            let c = try LineClient(port: server.port, readGreeting: false)
            c.close()
        }
        // Served while its stderr is still stuck.
        let cashier = try server.client()
        #expect(cashier.greeting?.hasPrefix("EVENT HELLO") == true)
        #expect(try cashier.command("ORDER banana").hasPrefix("OK ORDER banana 1"))
        #expect(try cashier.command("STOCK").hasPrefix("OK STOCK"))

        // Once someone reads the log, the gap is reported where it was.
        var log: [UInt8] = []
        let found = eventually {
            var chunk = [UInt8](repeating: 0, count: 65536)
            while true {
                let n = read(reader, &chunk, chunk.count)
                guard n > 0 else { break }
                log += chunk[..<n]
            }
            return String(decoding: log, as: UTF8.self).contains("log lines dropped (stderr not keeping up)")
        }
        #expect(found, "no drop notice in \(log.count) bytes of log")
        // The lines it kept are whole lines.
        for line in String(decoding: log, as: UTF8.self).split(separator: "\n") {
            #expect(line.contains(" juice-server: "), "a cut line: \(line)")
        }
    }
}

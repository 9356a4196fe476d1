import Foundation
import Glibc
import Testing
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

/// The shared test toolkit's own pieces that a test relies on to mean anything.
@Suite(.onOwnThreads) struct ToolkitTests {
    @Test func theListeningPortIsTheLatestStartLineAndOnlyThat() {
        let port = ExecutableServer.listeningPort
        #expect(port("juice-server listening on 127.0.0.1:7878\n") == 7878)
        #expect(port("juice-server listening on ::1:40001\r\n") == 40001)  // IPv6: the last colon
        #expect(port("juice-server listening on 0.0.0.0:1234") == 1234)
        // A restart appending to the same log: the latest line wins.
        #expect(port("juice-server listening on 127.0.0.1:1111\n...stopped\njuice-server listening on 127.0.0.1:2222\n") == 2222)
        // Log lines are not the start line, even when they quote one.
        #expect(port("2026-01-01T00:00:00.000Z juice-server: refused 'juice-server listening on 1.2.3.4:99'\n") == nil)
        #expect(port("2026-01-01T00:00:00.000Z juice-server: error: cannot listen on 127.0.0.1:80: EACCES\n") == nil)
        #expect(port("") == nil)
    }

    @Test func aServerATestStartedIsStoppedWhenTheTestThrows() async throws {
        var started: Server?
        await #expect(throws: TestError.self) {
            try await RunningServer.with { s in
                started = s.server
                #expect(await s.server.isRunning)
                throw TestError("the test failed here")
            }
        }
        let server = try #require(started)
        #expect(await !server.isRunning)
    }

    @Test func aLineClientReadsAnyMixOfLineEndsAcrossManyLines() throws {
        // A listener of our own that sends a fixed script, so only the client is under test.
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(listener) }
        let port = try #require(bindLoopbackPortZero(listener, listenBacklog: 1), "cannot listen: errno \(errno)")
        let lines = 100_000
        let script = Array(("EVENT HELLO test\r\n" + (0..<lines).map { $0 % 2 == 0 ? "OK \($0)\r\n" : "EVENT STOCK seq=\($0)\n" }.joined()).utf8)
        let served = DispatchSemaphore(value: 0)
        Thread {
            let peer = accept(listener, nil, nil)
            var offset = 0
            while offset < script.count {
                let n = script.withUnsafeBytes { send(peer, $0.baseAddress! + offset, script.count - offset, Int32(MSG_NOSIGNAL)) }
                if n <= 0 { break }
                offset += n
            }
            close(peer)
            served.signal()
        }.start()
        let client = try LineClient(port: port)
        #expect(client.greeting == "EVENT HELLO test")
        var mismatches = 0
        for i in stride(from: 0, to: lines, by: 2) where try client.reply() != "OK \(i)" { mismatches += 1 }
        #expect(mismatches == 0)
        // Events that came between replies were kept aside; the last one follows the last reply.
        #expect(client.events.count == lines / 2 - 1 && client.events.last == "EVENT STOCK seq=\(lines - 3)")
        #expect(client.nextLine() == .got("EVENT STOCK seq=\(lines - 1)"))
        #expect(client.nextLine() == .closed)
        #expect(throws: TestError.self) { try client.readLine() }
        served.wait()
    }

    @Test func eventuallyWaitsForAConditionAndReportsOne() async {
        var polls = 0
        #expect(eventually { polls += 1; return polls == 3 })
        #expect(!eventually(timeout: 0.1) { false })
        var asyncPolls = 0
        let held = await eventually { await Task.yield(); asyncPolls += 1; return asyncPolls == 3 }
        #expect(held)
    }

    @Test func theSeededGeneratorReplays() {
        var a = SeededRNG(seed: 42), b = SeededRNG(seed: 42), c = SeededRNG(seed: 43)
        let first = (0..<5).map { _ in a.next() }
        #expect(first == (0..<5).map { _ in b.next() })
        #expect(first != (0..<5).map { _ in c.next() })
    }

    @Test func procReadingsOfThisProcess() {
        let pid = getpid()
        #expect((ProcStat.status(pid, "VmRSS") ?? 0) > 0)
        // RSS first: the peak read after it covers it, even if memory grew in between (other
        // tests run in this process at the same time).
        let rss = ProcStat.status(pid, "VmRSS") ?? 0
        #expect((ProcStat.status(pid, "VmHWM") ?? 0) >= rss)
        #expect(ProcStat.cpuSeconds(pid) != nil)
        #expect(ProcStat.openFiles(pid) > 2)
        #expect(ProcStat.status(pid, "NoSuchField") == nil)
    }

    /// A program that leaves a daemon behind (tmux's first command starts its server) is seen to
    /// end when it ends, not when the daemon does: Foundation's Process on Linux waited for the
    /// daemon, and CI hung for good on tmux. The daemon here is a `sleep` with its output
    /// elsewhere; it must still be running when `run` returns.
    @Test func aProgramThatLeavesADaemonIsSeenToEnd() throws {
        let (status, output) = try Executables.run("/bin/sh", ["-c", "sleep 120 </dev/null >/dev/null 2>&1 & echo $!; exit 3"])
        #expect(status == 3)
        let daemon = try #require(Int32(output.trimmingCharacters(in: .whitespacesAndNewlines)), "\(output)")
        #expect(kill(daemon, 0) == 0, "run returned only once the daemon had ended")
        kill(daemon, SIGKILL)
    }

    /// `run` reports a program killed by a signal as the negative signal, and its output whole.
    @Test func runReportsSignalsAndOutput() throws {
        #expect(try Executables.run("/bin/sh", ["-c", "echo out; echo err >&2; kill -9 $$"]) == (-SIGKILL, "out\nerr\n"))
        let here = temporaryDirectory("juice-spawn-dir")
        defer { removeTemporary(here) }
        #expect(try Executables.run("/bin/pwd", [], directory: here).output == here + "\n")
    }

    /// A child's stdin may be a FIFO the test opens only afterwards: starting it does not wait
    /// for the writer (the child's shell opens the FIFO, not the spawn), and what is written
    /// reaches it.
    @Test func aChildReadsAFIFOTheTestOpensAfterStartingIt() throws {
        let here = temporaryDirectory("juice-child-fifo")
        defer { removeTemporary(here) }
        try #require(mkfifo(here + "/in", 0o600) == 0, "mkfifo failed: errno \(errno)")
        let cat = try ChildProcess("/bin/cat", [], stdinPath: here + "/in", stdoutPath: here + "/out")
        let writer = try #require(FileHandle(forWritingAtPath: here + "/in"))
        writer.write(Data("kiwi 1\n".utf8))
        try writer.close()
        #expect(cat.waitForExit() == 0)
        #expect(cat.output == "kiwi 1\n")
    }

    /// A child starts with no signal blocked or ignored, whatever the thread that started it
    /// had (a test thread may block SIGTERM; the test process ignores SIGPIPE): SIGTERM stops a
    /// program that never asked for it, by the default action.
    @Test func aChildHearsSIGTERMEvenFromAThreadThatBlocksIt() throws {
        var term = sigset_t(), before = sigset_t()
        sigemptyset(&term)
        sigaddset(&term, SIGTERM)
        pthread_sigmask(SIG_BLOCK, &term, &before)
        defer { pthread_sigmask(SIG_SETMASK, &before, nil) }
        let sleeper = try ChildProcess("/bin/sleep", ["120"], stdoutPath: "/dev/null")
        #expect(sleeper.isRunning)
        sleeper.signal(SIGTERM)
        #expect(sleeper.waitForExit() == -SIGTERM)
    }

    /// Children are started one way, `ChildProcess`: no test source makes a Foundation Process
    /// or a Pipe (whose reader, draining one pipe to its end, can deadlock on the other).
    @Test func noTestStartsAChildAnotherWay() throws {
        let tests = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        let files = FileManager.default.enumerator(atPath: tests.path)?.compactMap { $0 as? String }
            .filter { $0.hasSuffix(".swift") } ?? []
        #expect(files.count > 20, "the test sources were not found at \(tests.path)")
        let other = try #require(try? Regex(#"\b(Process|Pipe)\(\)|Foundation\.Process"#))
        let found = try files.filter { file in
            try String(contentsOfFile: tests.path + "/" + file, encoding: .utf8).split(separator: "\n")
                .contains { !$0.contains("///") && $0.contains(other) }
        }
        #expect(found.isEmpty, "a child started without ChildProcess in \(found)")
    }
}

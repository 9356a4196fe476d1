import Foundation
import Glibc
import Testing
import JuiceTill

/// One till id is one till: its key counter is locked for the till's life, so two tills sharing
/// a state directory cannot hand out the same keys (and lose a sale to the server's `dup`).
@Suite(.serialized, .onOwnThreads) struct TillKeyLockTests {
    @Test func aSecondHolderOfOneIDIsRefusedUntilTheFirstLetsGo() throws {
        let base = TemporaryDirectory("juice-till-lock"), directory = base.path + "/state"
        var first: TillKeys? = try TillKeys(directory: directory, tillID: "front")
        #expect(try first?.next() == "front:1")
        do {
            _ = try TillKeys(directory: directory, tillID: "front")
            Issue.record("a second till with id front was let in")
        } catch let inUse as TillKeys.InUse {
            #expect(inUse.tillID == "front" && "\(inUse)".contains("--till-id"), "\(inUse)")
        }
        let other = try TillKeys(directory: directory, tillID: "back") // another id is another counter
        #expect(try other.next() == "back:1")
        first = nil
        // The lock went with the till (taken back in this process: see retryingWhileLockHeld).
        let again = try retryingWhileLockHeld({ try TillKeys(directory: directory, tillID: "front") }) { $0 is TillKeys.InUse }
        #expect(try again.next() == "front:2")
    }

    /// The reviewer's case: two juice-till processes on one state directory and the default id.
    /// The second refuses to start (exit 2, naming the id and --till-id); the first keeps selling.
    @Test(.timeLimit(.minutes(2)))
    func aSecondTillWithTheSameIDRefusesToStart() async throws {
        let directory = TemporaryDirectory("juice-till-twice"), work = directory.path
        let server = try ExecutableServer(["--in-memory"])
        defer { server.stop() }
        let fifo = work + "/orders", state = ["XDG_STATE_HOME": work + "/state"]
        #expect(mkfifo(fifo, 0o600) == 0)
        let till = try ChildProcess(TillTests.till, ["--port", String(server.port)], directory: work,
                                    environment: state, stdinPath: fifo)
        defer { till.stop() }
        let orders = try #require(FileHandle(forWritingAtPath: fifo))
        orders.write(Data("kiwi 1\n".utf8))
        let sold = await settles { till.output.split(separator: "\n").count == 1 }
        #expect(sold && till.output.hasPrefix("made kiwi 1 seq=1"), "\(till.output) \(till.errors)")
        let id = try #require(readText(work + "/state/juice-till/till-id").split(separator: "\n").first.map(String.init))

        let second = try Executables.run(TillTests.till, ["--port", String(server.port)], environment: state)
        #expect(second.status == 2, "\(second)")
        #expect(second.output.contains("till id \(id)") && second.output.contains("--till-id"), "\(second.output)")

        orders.write(Data("kiwi 1\n".utf8))
        let soldAgain = await settles { till.output.split(separator: "\n").count == 2 }
        #expect(soldAgain && till.output.split(separator: "\n").last?.hasPrefix("made kiwi 1 seq=2") == true, "\(till.output)")
        try orders.close()
    }
}

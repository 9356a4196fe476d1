import Foundation
import Glibc
import JuiceCore
import JuiceDomain
import JuiceStorage
import JuicePlatform
import JuiceLog
import JuiceLoop
import JuiceServices
import JuiceLine
import JuiceHTTP
import JuiceServer
import Testing

/// A compaction's start of a new journal (rename, issue 35), crashed at every step.
extension DurabilityTests {
    /// SIGKILL at each step of a compaction's start of a new journal (the debug hook
    /// JUICE_TEST_KILL_IN_ROTATION) while 4 cashiers order: after a restart every acknowledged
    /// change is there, a `journal.next` the crash left behind is gone, and the store compacts
    /// again and keeps everything across another restart.
    @Test(arguments: ["snapshot", "next", "renamed", "rotated"])
    func aCrashWhileStartingANewJournalLosesNothingAcknowledged(step: String) throws {
        let directory = TemporaryDirectory(), dir = directory.path
        let arguments = ["--data", dir, "--initial-stock", "1000000", "--journal-max-bytes", "16384", "--no-http"]
        let server = try ExecutableServer(arguments, environment: ["JUICE_TEST_KILL_IN_ROTATION": step])
        let acknowledged = Acknowledged()
        let clients = try (0..<4).map { _ in try server.client() }
        onThreads(clients.count) { n in
            var i = 0
            while true {  // until the first compaction kills the server
                i += 1
                guard let reply = try? clients[n].command("ORDER banana key=c\(n)-\(i)"), let seq = values(reply)["seq"] else { return }
                acknowledged.add(seq: seq, reply: reply)
            }
        }
        #expect(server.waitForExit() == -SIGKILL, "\(server.log())")
        let maxSeen = acknowledged.all.keys.max() ?? 0
        #expect(maxSeen > 0)
        #expect(FileManager.default.fileExists(atPath: dir + "/journal.next") == (step == "next"))

        func check(_ restarted: ExecutableServer, atLeast: Int) throws -> Int {
            let stock = try restarted.client().command("STOCK banana")
            let seq = values(stock)["seq"] ?? -1
            #expect(seq >= atLeast, "\(step): recovered \(stock), \(atLeast) acknowledged")
            // Every change is one banana juice (two bananas): none applied twice, none half.
            #expect(values(stock)["banana"] == 1_000_000 - 2 * seq, "\(stock)")
            return seq
        }
        let restarted = try ExecutableServer(arguments)
        #expect(!FileManager.default.fileExists(atPath: dir + "/journal.next"))
        var seq = try check(restarted, atLeast: maxSeen)
        let c = try restarted.client()
        for i in 0..<300 {
            let reply = try c.command("ORDER banana key=after-\(i)")
            seq = try #require(values(reply)["seq"], "\(reply)")
        }
        #expect(restarted.logShows("compacted the journal"))
        #expect(restarted.terminate() == 0)
        let again = try ExecutableServer(arguments)
        #expect(try check(again, atLeast: seq) == seq)
        #expect(again.terminate() == 0)
    }
}

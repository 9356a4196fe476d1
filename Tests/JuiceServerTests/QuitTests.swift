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

/// QUIT closes "after sending everything owed": the events of the changes applied before it
/// too, the client's own included (issue 16 §3).
@Suite(.onOwnThreads) struct QuitTests {
    /// ORDER and QUIT in one write: the batch's replies, then its event, then the close.
    @Test(arguments: [false, true])
    func quitInTheSameWriteStillSendsTheOrdersEvent(durable: Bool) async throws {
        let dir = temporaryDirectory()
        defer { removeTemporary(dir) }
        try await RunningServer.with({ if durable { $0.dataDirectory = dir } }) { s in
            let c = try s.client()
            try c.sendRaw(Array("ORDER banana\r\nQUIT\r\n".utf8))
            #expect(c.waitClosed())
            #expect(c.drainLines() == ["OK ORDER banana 1 seq=1 banana=8 amount=4000", "OK BYE", "EVENT STOCK seq=1 banana=8"])
        }
    }

    /// With events off nothing is owed but the replies.
    @Test func quitWithEventsOffOwesNoEvent() async throws {
        try await RunningServer.with { s in
            let c = try s.client()
            try c.sendRaw(Array("EVENTS OFF\r\nORDER banana\r\nQUIT\r\n".utf8))
            #expect(c.waitClosed())
            #expect(c.drainLines() == ["OK EVENTS off", "OK ORDER banana 1 seq=1 banana=8 amount=4000", "OK BYE"])
        }
    }

    /// Writes, a SINCE and QUIT in one write: the SINCE's catch-up sends the writes' events, so
    /// the QUIT owes none of them again, and the connection closes right after `OK BYE`. On a
    /// durable server it was never closed (its events were owed through a seq the catch-up had
    /// already sent, and their broadcast, which skips it, never came back to close it).
    @Test(arguments: [("ORDER banana", false), ("ORDER banana", true), ("RESTOCK banana 5", true)])
    func quitAfterWritesAndASinceInOneWriteCloses(write: String, durable: Bool) async throws {
        let dir = temporaryDirectory()
        defer { removeTemporary(dir) }
        try await RunningServer.with({ if durable { $0.dataDirectory = dir } }) { s in
            let c = try s.client()
            try c.sendRaw(Array("\(write)\r\n\(write)\r\nSINCE 0\r\nQUIT\r\n".utf8))
            let closed = c.waitClosed()
            let lines = c.drainLines()
            #expect(closed, "still open after: \(lines)")
            #expect(lines.last == "OK BYE", "\(lines)")
            #expect(lines.filter { $0.hasPrefix("EVENT STOCK seq=") }.count == 2, "each change's event once: \(lines)")
        }
    }
}

import JuiceCore
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
            #expect(c.drainLines() == ["OK ORDER banana 1 seq=1 banana=8", "OK BYE", "EVENT STOCK seq=1 banana=8"])
        }
    }

    /// With events off nothing is owed but the replies.
    @Test func quitWithEventsOffOwesNoEvent() async throws {
        try await RunningServer.with { s in
            let c = try s.client()
            try c.sendRaw(Array("EVENTS OFF\r\nORDER banana\r\nQUIT\r\n".utf8))
            #expect(c.waitClosed())
            #expect(c.drainLines() == ["OK EVENTS off", "OK ORDER banana 1 seq=1 banana=8", "OK BYE"])
        }
    }
}

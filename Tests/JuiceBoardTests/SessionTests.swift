import Foundation
import Testing
@testable import JuiceBoard
import JuiceCore

/// The protocol rules, fed line by line: startup, interleaved events, and SINCE resumption.
@Suite(.onOwnThreads) struct SessionTests {
    /// `session` after a lost connection and a reconnect that has read the greeting and the
    /// unchanged MENU and MENU ALIASES replies: the next reply it expects answers SINCE.
    func reconnectedAwaitingSince(_ session: BoardSession) -> BoardSession {
        var session = session
        session.connectionLost(attempt: 1)
        session.connectionOpened()
        _ = session.receive(ServerLines.hello, now: t0)
        _ = session.receive(ServerLines.menu, now: t0)
        _ = session.receive(ServerLines.aliases, now: t0)
        return session
    }

    @Test func startupAsksForMenuAliasesAndStockAfterTheGreeting() {
        var session = BoardSession(serverAddress: "127.0.0.1:7878")
        session.connectionOpened()
        #expect(session.state.connection == .connecting)
        #expect(session.receive(ServerLines.hello, now: t0).commands == ["MENU", "MENU ALIASES", "STOCK"])
        #expect(session.receive(ServerLines.menu, now: t0).commands == [])
        _ = session.receive(ServerLines.aliases, now: t0)
        let out = session.receive(ServerLines.stock(seq: 4, [10, 9, 8, 7, 6]), now: t0)
        #expect(out.changes.map(PlainFormat.line) == ["seq=4 strawberry=10 banana=9 pineapple=8 kiwi=7 mango=6"])
        #expect(session.state.fruits == ServerLines.fruits)
        #expect(session.state.menu?.juices.count == 7)
        #expect(session.state.aliases.fruit["kiwi"] == ["키위"])
        #expect(session.state.connection == .connected)
        #expect(session.state.lastChange == nil) // the first snapshot is not a change we saw
        #expect(session.isSynced)
    }

    @Test func aliasesRefusedMeansNoAliases() {
        let session = syncedSession(aliases: false)
        #expect(session.state.aliases == .none)
        #expect(session.isSynced)
    }

    @Test func eventsAreAppliedAndTimestamped() {
        var session = syncedSession()
        let later = t0.addingTimeInterval(5)
        let out = session.receive("EVENT STOCK seq=1 mango=8 kiwi=9", now: later)
        #expect(out.changes.map(PlainFormat.line) == ["seq=1 strawberry=10 banana=10 pineapple=10 kiwi=9 mango=8"])
        #expect(out.needsRedraw)
        #expect(session.state.lastChange == later)
        #expect(session.state.seq == 1)
    }

    @Test func anEventNamingAFruitTheBoardDidNotKnowAppendsIt() {
        var session = syncedSession()
        let out = session.receive("EVENT STOCK seq=1 durian=4 kiwi=9", now: t0)
        #expect(out.changes.map(PlainFormat.line) == ["seq=1 strawberry=10 banana=10 pineapple=10 kiwi=9 mango=10 durian=4"])
        #expect(session.state.fruits == ServerLines.fruits + ["durian"])
    }

    @Test func eventsInterleavedWithStartupRepliesAreNotLostOrDoubled() {
        var session = BoardSession()
        session.connectionOpened()
        _ = session.receive(ServerLines.hello, now: t0)
        _ = session.receive("EVENT STOCK seq=1 kiwi=9", now: t0)   // before any reply
        _ = session.receive(ServerLines.menu, now: t0)
        _ = session.receive("EVENT STOCK seq=2 kiwi=8", now: t0)   // between replies
        _ = session.receive(ServerLines.aliases, now: t0)
        var out = session.receive(ServerLines.stock(seq: 2, [10, 10, 10, 8, 10]), now: t0)
        #expect(out.changes.map(\.seq) == [2]) // 1 and 2 are inside the snapshot
        out = session.receive("EVENT STOCK seq=2 kiwi=8", now: t0)   // a repeat: ignored
        #expect(out.changes.isEmpty)
        out = session.receive("EVENT STOCK seq=3 kiwi=7", now: t0)
        #expect(out.changes.map(\.seq) == [3])
        #expect(values(session) == [10, 10, 10, 7, 10])
    }

    @Test func anEventNewerThanTheSnapshotHeldBackIsApplied() {
        var session = BoardSession()
        session.connectionOpened()
        _ = session.receive(ServerLines.hello, now: t0)
        _ = session.receive(ServerLines.menu, now: t0)
        _ = session.receive(ServerLines.aliases, now: t0)
        _ = session.receive("EVENT STOCK seq=6 kiwi=3", now: t0)
        let out = session.receive(ServerLines.stock(seq: 5, [10, 10, 10, 4, 10]), now: t0)
        #expect(out.changes.map(\.seq) == [5, 6])
        #expect(values(session) == [10, 10, 10, 3, 10])
    }

    @Test func reconnectResumesWithSinceAndIgnoresEarlyRepeats() {
        var session = syncedSession(seq: 3)
        session.connectionLost(attempt: 1)
        #expect(session.state.connection == .reconnecting(attempt: 1))
        #expect(!session.isSynced)
        session.connectionOpened()
        #expect(session.receive(ServerLines.hello, now: t0).commands == ["MENU", "MENU ALIASES", "SINCE 3"])
        // A live event that arrives before OK SINCE: applying it now would make 4 look like a
        // duplicate later; it must wait for the replay.
        #expect(session.receive("EVENT STOCK seq=5 kiwi=5", now: t0).changes.isEmpty)
        #expect(session.receive(ServerLines.menu, now: t0).commands == []) // menu unchanged: no STOCK
        _ = session.receive(ServerLines.aliases, now: t0)
        var seen: [Int] = []
        for line in ["OK SINCE 3 5", "EVENT STOCK seq=4 kiwi=6", "EVENT STOCK seq=5 kiwi=5",
                     "EVENT STOCK seq=5 kiwi=5", "EVENT STOCK seq=6 banana=1"] {
            seen += session.receive(line, now: t0).changes.map(\.seq)
        }
        #expect(seen == [4, 5, 6])
        #expect(values(session) == [10, 1, 10, 5, 10])
        #expect(session.state.connection == .connected)
    }

    @Test func sinceBeyondHistoryGetsAFullSnapshotThatReplacesTheState() {
        var session = reconnectedAwaitingSince(syncedSession(seq: 3))
        _ = session.receive("OK SINCE 3 20000", now: t0)
        let out = session.receive(ServerLines.fullEvent(seq: 20000, [1, 2, 3, 4, 5]), now: t0)
        #expect(out.changes.map(PlainFormat.line) == ["seq=20000 strawberry=1 banana=2 pineapple=3 kiwi=4 mango=5"])
        #expect(session.receive("EVENT STOCK seq=20001 kiwi=0", now: t0).changes.map(\.seq) == [20001])
    }

    @Test func aWipedStoreBelowOurSeqIsTakenAsTheNewTruth() {
        var session = reconnectedAwaitingSince(syncedSession(seq: 30, values: [0, 0, 0, 0, 0]))
        _ = session.receive("OK SINCE 30 2", now: t0)
        var out = session.receive(ServerLines.fullEvent(seq: 2, [10, 10, 10, 8, 6]), now: t0)
        #expect(out.changes.map(\.seq) == [2])
        #expect(session.state.seq == 2)
        #expect(values(session) == [10, 10, 10, 8, 6])
        out = session.receive("EVENT STOCK seq=3 mango=3", now: t0)
        #expect(out.changes.map(\.seq) == [3])
        out = session.receive("EVENT STOCK seq=3 mango=3", now: t0)
        #expect(out.changes.isEmpty)
    }

    @Test func aLiveEventListingEveryFruitReplacesTheState() {
        var session = syncedSession(seq: 3)
        let out = session.receive(ServerLines.fullEvent(seq: 4, [1, 1, 1, 1, 1]), now: t0)
        #expect(out.changes.map(\.seq) == [4])
        #expect(values(session) == [1, 1, 1, 1, 1])
    }

    @Test func aChangedMenuOnReconnectTakesAFreshStock() {
        var session = syncedSession(seq: 3)
        session.connectionLost(attempt: 1)
        session.connectionOpened()
        #expect(session.receive(ServerLines.hello, now: t0).commands == ["MENU", "MENU ALIASES", "SINCE 3"])
        let newMenu = "OK MENU plum=plum:2 kiwi=kiwi:3"
        #expect(session.receive(newMenu, now: t0).commands == ["STOCK"])
        _ = session.receive("OK MENU ALIASES fruit:plum=자두 fruit:kiwi=키위 juice:plum= juice:kiwi=", now: t0)
        _ = session.receive("OK SINCE 3 4", now: t0)
        _ = session.receive("EVENT STOCK seq=4 kiwi=2", now: t0)
        #expect(!session.isSynced) // the STOCK is still owed
        let out = session.receive("OK STOCK seq=4 plum=7 kiwi=2", now: t0)
        #expect(session.state.fruits == ["plum", "kiwi"])
        #expect(out.changes.map(PlainFormat.line).last == "seq=4 plum=7 kiwi=2")
        #expect(session.state.menu?.juices.map(\.name) == ["plum", "kiwi"])
        #expect(session.isSynced)
    }

    @Test func aServerWithoutSinceFallsBackToStock() {
        var session = reconnectedAwaitingSince(syncedSession(seq: 3))
        #expect(session.receive("ERR UNKNOWN_COMMAND SINCE", now: t0).commands == ["STOCK"])
        let out = session.receive(ServerLines.stock(seq: 9, [1, 2, 3, 4, 5]), now: t0)
        #expect(out.changes.map(\.seq) == [9])
        #expect(session.isSynced)
    }

    @Test func byeAndOutOfStepRepliesDropTheConnection() {
        var session = syncedSession()
        #expect(session.receive("EVENT BYE shutting down", now: t0).disconnect)
        session.connectionOpened()
        _ = session.receive(ServerLines.hello, now: t0)
        #expect(session.receive("OK PONG", now: t0).disconnect) // MENU was asked, not PING
    }

    @Test func pingIsAnsweredQuietly() {
        var session = syncedSession()
        #expect(session.ping() == "PING")
        let out = session.receive("OK PONG", now: t0)
        #expect(!out.disconnect && out.changes.isEmpty && out.commands.isEmpty)
    }

    @Test func aGapTakesAFreshStock() {
        var session = syncedSession(seq: 3)
        let out = session.receive("EVENT STOCK seq=7 kiwi=1", now: t0)
        #expect(out.commands == ["STOCK"])
        _ = session.receive("EVENT STOCK seq=8 kiwi=0", now: t0) // held until the STOCK reply
        let fresh = session.receive(ServerLines.stock(seq: 7, [9, 9, 9, 1, 9]), now: t0)
        #expect(fresh.changes.map(\.seq) == [7, 8])
        #expect(values(session) == [9, 9, 9, 0, 9])
    }

    /// A second greeting on the same connection neither asks again nor forgets what is owed:
    /// the replies to the first startup still pair with MENU, MENU ALIASES and STOCK, and once
    /// synced the sequence goes on from where it was.
    @Test func greetingTwiceDoesNotRestartTheSequence() {
        var session = BoardSession()
        session.connectionOpened()
        #expect(session.receive(ServerLines.hello, now: t0).commands == ["MENU", "MENU ALIASES", "STOCK"])
        #expect(session.receive(ServerLines.hello, now: t0).commands.isEmpty)
        _ = session.receive(ServerLines.menu, now: t0)
        _ = session.receive(ServerLines.aliases, now: t0)
        let base = session.receive(ServerLines.stock(seq: 4, [10, 9, 8, 7, 6]), now: t0)
        #expect(!base.disconnect, "\(base.note ?? "")")
        #expect(base.changes.map(\.seq) == [4])
        let syncedOnce = session.isSynced
        #expect(syncedOnce)

        let again = session.receive(ServerLines.hello, now: t0)
        #expect(again.commands.isEmpty && !again.disconnect && again.changes.isEmpty)
        let stillSynced = session.isSynced
        #expect(stillSynced)
        #expect(session.state.seq == 4)
        #expect(session.receive("EVENT STOCK seq=5 kiwi=6", now: t0).changes.map(\.seq) == [5])
        #expect(values(session) == [10, 9, 8, 6, 6])
    }
}

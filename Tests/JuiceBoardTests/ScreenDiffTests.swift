import Testing
@testable import JuiceBoard
import JuiceScreen

@Suite(.onOwnThreads) struct ScreenDiffTests {
    let begin = "\u{1B}[?2026h", end = "\u{1B}[?2026l", esc = "\u{1B}["

    @Test func onlyChangedLinesAreRewritten() {
        let old = ["a", "b", "c", "d"]
        let new = ["a", "B", "c", "dd"]
        #expect(ScreenDiff.changedRows(from: old, to: new) == [1, 3])
        #expect(ScreenDiff.updates(from: old, to: new, columns: 10)
                == begin + esc + "2;1HB" + esc + "K" + esc + "4;1Hdd" + esc + "K" + end)
    }

    @Test func nothingChangedWritesNothing() {
        #expect(ScreenDiff.updates(from: ["a", "b"], to: ["a", "b"], columns: 10) == "")
    }

    @Test func firstFrameOrNewSizeClearsAndDrawsEverything() {
        let expected = begin + esc + "H" + esc + "2J" + esc + "1;1Hx" + esc + "K" + esc + "3;1Hz" + esc + "K" + end
        #expect(ScreenDiff.updates(from: nil, to: ["x", "", "z"], columns: 10) == expected)
        #expect(ScreenDiff.updates(from: ["x", ""], to: ["x", "", "z"], columns: 10) == expected)
    }

    @Test func aFullWidthLineIsNotFollowedByAnErase() {
        // Erasing at the last column would wipe the line's last character in pending-wrap state.
        #expect(ScreenDiff.updates(from: ["abc"], to: ["xyz"], columns: 3) == begin + esc + "1;1Hxyz" + end)
        // Escapes and wide characters count by display columns.
        #expect(ScreenDiff.visibleColumns(of: esc + "1;31m키위" + esc + "0m") == 4)
        #expect(ScreenDiff.updates(from: ["abcd"], to: [esc + "33m키위" + esc + "0m"], columns: 4)
                == begin + esc + "1;1H" + esc + "33m키위" + esc + "0m" + end)
    }

    @Test func aClearedLineIsErased() {
        #expect(ScreenDiff.updates(from: ["gone"], to: [""], columns: 10) == begin + esc + "1;1H" + esc + "K" + end)
    }

    @Test func aBurstOfChangesToOneValueRedrawsOneLine() {
        // Render, apply many events, render again: only the touched rows differ.
        var session = syncedSession()
        let options = RenderOptions(language: .english, color: true, timeZone: utc)
        let size = TerminalSize(columns: 80, rows: 24)
        let before = BoardRenderer.render(session.state, size: size, options: options)
        for seq in 1...1000 {
            _ = session.receive("EVENT STOCK seq=\(seq) pineapple=\(seq % 7 + 3)", now: t0)
        }
        let after = BoardRenderer.render(session.state, size: size, options: options)
        // pineapple's row, the pineapple juice row, and the status line (seq, time).
        #expect(ScreenDiff.changedRows(from: before, to: after).count == 3)
    }
}

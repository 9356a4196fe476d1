// From the screen the terminal shows to the one it should show, rewriting only what changed.
// Pure: the output is the exact bytes to write, so the diff is tested without a terminal.

public enum ScreenDiff {
    static let esc = "\u{1B}["
    /// Synchronized-update brackets: terminals that know them show the frame at once
    /// (no tearing mid-update); the others ignore them.
    static let beginFrame = "\u{1B}[?2026h"
    static let endFrame = "\u{1B}[?2026l"

    /// Rows (0-based) whose text differs. Any change of screen height means every row.
    public static func changedRows(from old: [String]?, to new: [String]) -> [Int] {
        guard let old, old.count == new.count else { return Array(new.indices) }
        return new.indices.filter { old[$0] != new[$0] }
    }

    /// Escape sequences that turn a terminal showing `old` into `new`: cursor to each changed
    /// row, its new text, then erase whatever of the old text is left to the right.
    /// Without an old screen (first frame, resize) the screen is cleared and drawn whole.
    /// Returns "" when nothing changed, so an idle board writes nothing at all.
    public static func updates(from old: [String]?, to new: [String], columns: Int) -> String {
        let fullRedraw = old == nil || old!.count != new.count
        let rows = changedRows(from: fullRedraw ? nil : old, to: new)
        guard !rows.isEmpty || fullRedraw else { return "" }
        var out = beginFrame
        if fullRedraw { out += esc + "H" + esc + "2J" }
        for row in rows {
            let line = new[row]
            if fullRedraw && line.isEmpty { continue } // already blank after the clear
            out += esc + "\(row + 1);1H" + line
            // Erasing after a line that fills the last column would, in the terminal's
            // pending-wrap state, erase that last character: only erase when there is room.
            if visibleColumns(of: line) < columns { out += esc + "K" }
        }
        out += endFrame
        return out
    }

    /// Display columns of a line, not counting SGR escape sequences.
    public static func visibleColumns(of line: String) -> Int {
        DisplayWidth.columns(of: stripEscapes(line))
    }

    /// The line without CSI escape sequences (ESC [ ... final byte).
    public static func stripEscapes(_ line: String) -> String {
        var out = ""
        var iterator = line.unicodeScalars.makeIterator()
        while let scalar = iterator.next() {
            guard scalar == "\u{1B}" else { out.unicodeScalars.append(scalar); continue }
            guard iterator.next() == "[" else { continue }
            while let c = iterator.next(), !(c.value >= 0x40 && c.value <= 0x7E) {}
        }
        return out
    }
}

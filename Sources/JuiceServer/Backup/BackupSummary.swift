import Foundation
import JuiceCore
import JuiceDomain
import JuiceStorage

/// What a backup holds, in the words `verify` and `restore` print: the store's seq, when it last
/// changed, its keys, days of history and tills. Read from the recovered state, so it is what a
/// server started on the restored directory would serve.
package struct BackupSummary: Sendable, Equatable {
    package var takenAt: Int64
    package var seq: UInt64
    /// The time of the newest timed thing the state holds (a sale, a key, an hour with changes);
    /// nil for a store that never changed.
    package var lastChange: Int64?
    package var keys: Int
    package var historyDays: Int
    package var firstDay: Int32?
    package var lastDay: Int32?
    package var tills: Int

    package init(_ contents: BackupFile.Contents) {
        let ledger = contents.ledger
        takenAt = contents.takenAt
        seq = ledger.seq
        keys = ledger.keys.count
        let hours = ledger.history.inOrder
        let days = Set(hours.map(\.slot.day))
        historyDays = days.count
        firstDay = days.min()
        lastDay = days.max()
        tills = ledger.tills.activeCount
        let times = ledger.sales.all.map(\.time) + ledger.keys.inOrder.map(\.entry.time) + hours.suffix(1).map(\.slot.start)
        lastChange = times.max()
    }

    /// The lines printed for it.
    package var lines: [String] {
        var lines = ["taken:        \(UTCTime.text(takenAt))", "seq:          \(seq)"]
        lines.append("last change:  " + (lastChange.map(UTCTime.text) ?? "none (a store that never changed)"))
        lines.append("keys:         \(keys)")
        if let firstDay, let lastDay {
            lines.append("history:      \(historyDays) days (\(BusinessCalendar.dateText(firstDay)) to \(BusinessCalendar.dateText(lastDay)))")
        } else {
            lines.append("history:      0 days")
        }
        lines.append("tills:        \(tills) paired")
        return lines
    }
}

extension BackupSummary {
    /// What a backup command did: a heading, the backup it concerns, and lines to say after.
    package struct Done {
        var heading: String
        var contents: BackupFile.Contents
        var after: [String] = []
    }

    /// Runs `backup`, `verify` or `restore`'s work: on success prints the heading and what the
    /// backup holds (exit 0); on failure says why on stderr, naming the command (exit 1).
    package static func run(_ command: String, failureNote: String = "", _ work: () throws -> Done) -> Int32 {
        do {
            let done = try work()
            print(done.heading)
            for line in BackupSummary(done.contents).lines { print("  " + line) }
            for line in done.after { print(line) }
            return 0
        } catch {
            FileHandle.standardError.write(Data("juice-server \(command): \(error)\(failureNote)\n".utf8))
            return 1
        }
    }
}

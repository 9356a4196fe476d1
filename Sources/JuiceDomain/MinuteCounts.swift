import JuiceCore
import JuicePlatform
import JuiceLog

/// Orders served and refused per wall-clock minute, for the last 60 whole minutes and the current
/// one: what the manager's dashboard plots. A fixed ring of 61 slots, each tagged with the minute
/// it counts, so recording is O(1), memory never grows, and a slot left over from an hour ago (the
/// server was idle) reads as zero instead of as this hour's count. In memory only: after a
/// restart it starts empty ("since start"); the lasting counters are in `StockLedger`.
package struct MinuteCounts: Sendable, Equatable {
    /// The last 60 whole minutes plus the current one.
    package static let minutes = 61

    private struct Slot: Sendable, Equatable {
        /// Unix time / 60 of the minute this slot counts; `Int64.min` for never used.
        package var minute: Int64 = .min
        package var served: UInt64 = 0
        package var refused: UInt64 = 0
    }

    private var slots = Array(repeating: Slot(), count: MinuteCounts.minutes)

    package init() {}

    /// Counts one order outcome at `unixSeconds` (wall clock). A time more than an hour older
    /// than what the slot already counts (the clock was set back) is not counted: it would
    /// overwrite a newer minute.
    package mutating func record(served: Bool, at unixSeconds: Int64) {
        let minute = Self.minute(of: unixSeconds)
        let i = Self.slot(of: minute)
        if slots[i].minute < minute {
            slots[i] = Slot(minute: minute)
        } else if slots[i].minute > minute {
            return
        }
        if served { slots[i].served += 1 } else { slots[i].refused += 1 }
    }

    /// The 61 minutes ending with the one holding `unixSeconds`, oldest first, each with its
    /// start (unix seconds) and counts; minutes with no orders are listed with zeros.
    package func window(at unixSeconds: Int64) -> [MinuteCount] {
        let now = Self.minute(of: unixSeconds)
        return ((now - Int64(Self.minutes) + 1)...now).map { minute in
            let slot = slots[Self.slot(of: minute)]
            return slot.minute == minute
                ? MinuteCount(start: minute * 60, served: slot.served, refused: slot.refused)
                : MinuteCount(start: minute * 60, served: 0, refused: 0)
        }
    }

    /// Floor division, so a time before 1970 (a badly set clock) still lands in its own minute.
    private static func minute(of seconds: Int64) -> Int64 {
        seconds >= 0 ? seconds / 60 : (seconds - 59) / 60
    }

    private static func slot(of minute: Int64) -> Int {
        Int(((minute % Int64(minutes)) + Int64(minutes)) % Int64(minutes))
    }
}


// The queues a `KeyMemory` keeps its keys in, apart from its rules.
import JuiceCore
import JuicePlatform
import JuiceLog

extension KeyMemory {
    /// One address's or namespace's keys, oldest first (their times, serials and stored keys;
    /// the slots hold the rest).
    package struct Share: Sendable {
        package var times: [Int64] = []
        package var serials: [UInt64] = []
        package var keys: [String] = []
        package var head = 0
        package var count: Int { times.count - head }
        package var oldest: Int64? { head < times.count ? times[head] : nil }
        package var oldestSerial: UInt64? { head < serials.count ? serials[head] : nil }

        package mutating func append(_ time: Int64, _ serial: UInt64, _ key: String) {
            times.append(time)
            serials.append(serial)
            keys.append(key)
        }

        package mutating func removeOldest() {
            head += 1
            if head == times.count {
                times.removeAll(keepingCapacity: false)
                serials.removeAll(keepingCapacity: false)
                keys.removeAll(keepingCapacity: false)
                head = 0
            } else if head >= 1024 && head * 2 >= times.count {
                times.removeFirst(head)
                serials.removeFirst(head)
                keys.removeFirst(head)
                head = 0
            }
        }
    }

    /// Slots in arrival order, the front at `head`.
    package struct Queue: Sendable {
        package var slots: [Slot] = []
        package var head = 0
        package var front: Slot? { head < slots.count ? slots[head] : nil }
        package var live: ArraySlice<Slot> { slots[head...] }

        package mutating func compact() {
            if head == slots.count {
                slots.removeAll(keepingCapacity: slots.count <= 4096)
                head = 0
            } else if head >= 4096 && head * 2 >= slots.count {
                slots.removeFirst(head)
                head = 0
            }
        }
    }
}

// The queues a `KeyMemory` keeps its keys in, apart from its rules.

extension KeyMemory {
    /// One address's or namespace's keys, oldest first (their times, serials and stored keys;
    /// the slots hold the rest).
    struct Share: Sendable {
        var times: [Int64] = []
        var serials: [UInt64] = []
        var keys: [String] = []
        var head = 0
        var count: Int { times.count - head }
        var oldest: Int64? { head < times.count ? times[head] : nil }
        var oldestSerial: UInt64? { head < serials.count ? serials[head] : nil }

        mutating func append(_ time: Int64, _ serial: UInt64, _ key: String) {
            times.append(time)
            serials.append(serial)
            keys.append(key)
        }

        mutating func removeOldest() {
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
    struct Queue: Sendable {
        var slots: [Slot] = []
        var head = 0
        var front: Slot? { head < slots.count ? slots[head] : nil }
        var live: ArraySlice<Slot> { slots[head...] }

        mutating func compact() {
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

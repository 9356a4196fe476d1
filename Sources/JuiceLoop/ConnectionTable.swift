import JuiceCore
import JuicePlatform
import JuiceLog
/// The loop's clients, by id. A connection's id is its slot here (low 32 bits) and a count of
/// every connection ever made (high 32 bits): unique, so a readiness report for a connection
/// that closed never reaches the newer one in its slot. An array of references costs about
/// 8-16 bytes a client; a dictionary cost some 26 (every client pays it: see juice-bench idle).
package struct ConnectionTable {
    private var slots: [Connection?] = []
    /// Slots whose connection closed, taken first.
    private var free: [UInt32] = []
    private var made: UInt64 = 0
    package private(set) var count = 0

    package var isEmpty: Bool { count == 0 }

    /// Every connection. (Iterating a copy: closing some meanwhile is safe.)
    package var values: some Sequence<Connection> { slots.lazy.compactMap { $0 } }

    /// The id the next connection gets.
    package var nextID: UInt64 {
        let slot = free.last.map(UInt64.init) ?? UInt64(slots.count)
        return (made + 1) << 32 | slot
    }

    /// Adds a connection made with `nextID`.
    package mutating func insert(_ conn: Connection) {
        precondition(conn.id == nextID, "a connection is made with nextID")
        made += 1
        let slot = Int(conn.id & 0xFFFF_FFFF)
        if slot == slots.count { slots.append(conn) } else { free.removeLast(); slots[slot] = conn }
        count += 1
    }

    package subscript(id: UInt64) -> Connection? {
        let slot = Int(id & 0xFFFF_FFFF)
        guard slot < slots.count, let conn = slots[slot], conn.id == id else { return nil }
        return conn
    }

    package mutating func remove(_ conn: Connection) {
        let slot = Int(conn.id & 0xFFFF_FFFF)
        guard slot < slots.count, slots[slot] === conn else { return }
        slots[slot] = nil
        free.append(UInt32(slot))
        count -= 1
    }
}

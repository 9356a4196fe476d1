/// The idempotency keys of recent keyed orders and the reply each got, so a cashier who lost the
/// connection can retry safely. It keeps the last `Limits.rememberedKeys` keys (oldest forgotten
/// first), a bound on memory that does not depend on the clock.
public struct KeyMemory: Sendable {
    public struct Entry: Sendable, Equatable {
        public let juice: Int
        public let count: Int
        /// The original reply line as `Wire` built it, without CRLF. Kept as bytes, not as the
        /// values it was built from, so a retry repeats what was sent. After a restart, a key
        /// from the snapshot (`K` records store this line verbatim) repeats it exactly; one
        /// replayed from the journal gets its reply rebuilt from the `O`/`R` record under the
        /// current menu (the same line, unless the menu dropped a fruit it named).
        public let reply: [UInt8]
        public init(juice: Int, count: Int, reply: [UInt8]) {
            self.juice = juice
            self.count = count
            self.reply = reply
        }
    }

    public let capacity: Int
    private var entries: [String: Entry] = [:]
    /// Keys in the order they were first seen: a ring, `head` is the oldest once full.
    private var order: [String] = []
    private var head = 0

    public init(capacity: Int = Limits.rememberedKeys) {
        self.capacity = capacity
    }

    public var count: Int { entries.count }

    public subscript(key: String) -> Entry? { entries[key] }

    public mutating func remember(_ key: String, _ entry: Entry) {
        if entries.updateValue(entry, forKey: key) != nil { return }
        if order.count < capacity {
            order.append(key)
        } else {
            entries.removeValue(forKey: order[head])
            order[head] = key
            head = (head + 1) % capacity
        }
    }

    /// Oldest first: the order a snapshot writes them in, so a reload forgets the same ones.
    public var inOrder: [(key: String, entry: Entry)] {
        let keys = order.count < capacity ? order : Array(order[head...] + order[..<head])
        return keys.compactMap { k in entries[k].map { (k, $0) } }
    }
}

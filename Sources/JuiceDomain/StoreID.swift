/// A store's id (`StoreIdentity` keeps it in the data directory): in the greeting, `/state`
/// and event-stream ids, so a client can tell a store it saw from another.
package enum StoreID {
    /// 16 lowercase hex digits (64 random bits): two stores never meet with the same one.
    package static func fresh() -> String {
        var generator = SystemRandomNumberGenerator()
        let value = generator.next() as UInt64
        let hex = String(value, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }

    /// What a kept id may be: the server's own are hex; 1-64 of a-z A-Z 0-9 . _ - (a `key=`
    /// token's alphabet without `:`, which separates the id from the seq in an event-stream id).
    package static func isValid(_ id: String) -> Bool {
        (1...64).contains(id.utf8.count) && id.utf8.allSatisfy { b in
            (0x30...0x39).contains(b) || (0x41...0x5A).contains(b) || (0x61...0x7A).contains(b) || b == 0x2E || b == 0x5F || b == 0x2D
        }
    }
}

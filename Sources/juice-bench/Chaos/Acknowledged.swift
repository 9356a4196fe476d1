/// A till's keyed write that got its answer: the first answer its till received, whatever
/// attempt it came on (`dup`: the server had applied an earlier attempt whose answer was lost).
/// Orders and voids share a till's keys (`n`: the till's write number, its key's last part), so
/// they share this one shape and differ only in what was asked (`write`) and what came back;
/// `order.juice`, `void.sale` read the write's fields.
@dynamicMemberLookup
struct Acknowledged<Write: Equatable & Sendable, Answer: Equatable & Sendable>: Equatable, Sendable {
    var key: String
    var write: Write
    var via: Protocol
    var answer: Answer
    var dup: Bool
    /// The till (its index) that wrote it: a key belongs to its till, and only that till may
    /// re-send it.
    var till = 0
    var n = 0

    subscript<Field>(dynamicMember field: KeyPath<Write, Field>) -> Field { write[keyPath: field] }
}

/// What an order asked for: `ORDER <juice> <count>`.
struct OrderWrite: Equatable, Sendable {
    var juice: String
    var count: Int
}

/// What a void asked for: `VOID <sale> <reason>`.
struct VoidWrite: Equatable, Sendable {
    var sale: Int
    var reason: String
}

typealias AcknowledgedOrder = Acknowledged<OrderWrite, OrderAnswer>
typealias AcknowledgedVoid = Acknowledged<VoidWrite, VoidAnswer>
